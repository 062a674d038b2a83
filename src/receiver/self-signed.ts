/**
 * The certificate `vigia listen` serves on loopback, made once with openssl and kept in a
 * directory (default VIGIA_DATA_DIR/listen), so the sender can trust it with
 * NODE_EXTRA_CA_CERTS=<dir>/cert.pem — and keeps trusting it on the next run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface CertFiles {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** True when this call made the files. */
  created: boolean;
}

export function ensureSelfSignedCert(dir: string): CertFiles {
  const certFile = path.resolve(dir, 'cert.pem');
  const keyFile = path.resolve(dir, 'key.pem');
  const created = !(existsSync(certFile) && existsSync(keyFile));
  if (created) {
    mkdirSync(path.dirname(certFile), { recursive: true, mode: 0o700 });
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '825', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', '-keyout', keyFile, '-out', certFile],
      { stdio: 'pipe' },
    );
  }
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), created };
}
