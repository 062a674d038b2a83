/**
 * One local certificate authority for the local tools. `vigia listen` and `vigia tenant-sim`
 * each serve a leaf certificate (localhost, 127.0.0.1, ::1) signed by the same authority, kept in
 * VIGIA_DATA_DIR/local-ca, so ONE `NODE_EXTRA_CA_CERTS=<data>/local-ca/ca.pem` makes Vigia trust
 * both — and keeps trusting them on the next run. Everything is made once with openssl and
 * written owner-only (directories 0700, files 0600), like the rest of the data directory: the
 * same user runs Vigia, and Vigia does not warn about a directory it made itself.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface CertFiles {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
  /** The authority that signed the certificate: the one file to trust. */
  caFile: string;
  /** True when this call made the certificate. */
  created: boolean;
}

export function defaultCaDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.VIGIA_DATA_DIR || './data', 'local-ca');
}

const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** The local authority's certificate and key, made on first use. */
export function ensureLocalCa(caDir: string = defaultCaDir()): { caFile: string; caKeyFile: string } {
  const caFile = path.resolve(caDir, 'ca.pem');
  const caKeyFile = path.resolve(caDir, 'ca-key.pem');
  if (existsSync(caFile) && existsSync(caKeyFile)) return { caFile, caKeyFile };
  privateDir(path.dirname(caFile));
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=Vigia local CA',
    '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout', caKeyFile, '-out', caFile);
  chmodSync(caFile, 0o600);
  chmodSync(caKeyFile, 0o600);
  return { caFile, caKeyFile };
}

/** Whether the kept certificate was signed by this authority (an older self-signed one was not). */
function signedBy(certFile: string, caFile: string): boolean {
  try {
    return new X509Certificate(readFileSync(certFile)).verify(new X509Certificate(readFileSync(caFile)).publicKey);
  } catch {
    return false;
  }
}

/** The leaf certificate kept in `dir`, signed by the local authority (made, or made again, when needed). */
export function ensureLocalCert(dir: string, caDir: string = defaultCaDir()): CertFiles {
  const certFile = path.resolve(dir, 'cert.pem');
  const keyFile = path.resolve(dir, 'key.pem');
  const { caFile, caKeyFile } = ensureLocalCa(caDir);
  const created = !(existsSync(certFile) && existsSync(keyFile) && signedBy(certFile, caFile));
  if (created) {
    privateDir(path.dirname(certFile));
    const csr = path.resolve(dir, 'cert.csr');
    const ext = path.resolve(dir, 'cert.ext');
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', keyFile, '-out', csr);
    writeFileSync(ext, ['basicConstraints=CA:FALSE', 'keyUsage=digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'].join('\n'), { mode: 0o600 });
    openssl('x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', caKeyFile, '-set_serial', `0x${Date.now().toString(16)}`, '-days', '825', '-extfile', ext, '-out', certFile);
    rmSync(csr, { force: true });
    rmSync(ext, { force: true });
    chmodSync(certFile, 0o600);
    chmodSync(keyFile, 0o600);
  }
  const key = readFileSync(keyFile, 'utf8');
  createPrivateKey(key); // fails loudly on a damaged key rather than at the first TLS handshake
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key, caFile, created };
}
