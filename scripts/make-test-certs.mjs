// Creates a private test CA and a server certificate signed by it (once), for the real HTTPS
// receivers and vendor fakes the tests run on loopback. Node trusts the CA through
// NODE_EXTRA_CA_CERTS, set by scripts/run-tests.mjs before the test processes start.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CERT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '.test-certs');

export function makeTestCerts(dir = CERT_DIR) {
  const files = {
    caCert: path.join(dir, 'ca.crt'),
    caKey: path.join(dir, 'ca.key'),
    cert: path.join(dir, 'server.crt'),
    key: path.join(dir, 'server.key'),
  };
  if (existsSync(files.cert) && existsSync(files.caCert)) return files;
  mkdirSync(dir, { recursive: true });
  const run = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=Vigia Test CA',
    '-keyout', files.caKey, '-out', files.caCert);
  const csr = path.join(dir, 'server.csr');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', files.key, '-out', csr);
  const ext = path.join(dir, 'server.ext');
  writeFileSync(ext, [
    'basicConstraints=CA:FALSE',
    'keyUsage=digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    // Loopback names and addresses, plus *.test names a test resolver maps to loopback.
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:*.example.test,DNS:receiver.test,DNS:*.vendor.test',
  ].join('\n'));
  run('x509', '-req', '-in', csr, '-CA', files.caCert, '-CAkey', files.caKey, '-CAcreateserial',
    '-days', '3650', '-out', files.cert, '-extfile', ext);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = makeTestCerts();
  process.stdout.write(`${files.caCert}\n`);
}
