/**
 * What a person should do about a failure to reach or sign in to a tenant, in Portuguese and
 * English, chosen by the failure's cause: `check` shows it beside each item, and the Tenant
 * self-incidents carry it in their message.
 */
import type { ConnectionCause } from '../platform/connection-cause.js';
import type { CredentialProblem } from '../platform/token-errors.js';
import { TokenRefusedError, TokenUnavailableError } from '../platform/token-errors.js';
import { VendorCallError } from '../platform/transport.js';

/** Declared once, with the languages (orgs/language.ts). */
export type { Texts } from '../../orgs/language.js';
import type { Texts } from '../../orgs/language.js';

export const FIX_TOKEN: Texts = {
  'pt-BR':
    'Confira no Microsoft Entra ID (Registros de aplicativo) o ID do tenant (no portal, "ID do locatário") e o ID do aplicativo (cliente); crie um novo segredo do cliente ou envie o certificado em "Certificados e segredos" e atualize as credenciais desta conexão.',
  en: 'In Microsoft Entra ID (App registrations), check the tenant ID and the application (client) ID; create a new client secret or upload the certificate under "Certificates & secrets", then update this connection\'s credentials.',
};

const CREDENTIAL_FIXES: Record<CredentialProblem, Texts> = {
  invalid_secret: {
    'pt-BR': 'O segredo do cliente está errado: em Entra ID > Registros de aplicativo > "Certificados e segredos", copie o Valor do segredo (não o ID do segredo) ou crie um novo, e atualize as credenciais desta conexão.',
    en: 'The client secret is wrong: in Entra ID > App registrations > "Certificates & secrets", copy the secret\'s Value (not its Secret ID) or create a new one, and update this connection\'s credentials.',
  },
  expired_secret: {
    'pt-BR': 'O segredo do cliente expirou: crie um novo em Entra ID > Registros de aplicativo > "Certificados e segredos" e atualize as credenciais desta conexão.',
    en: 'The client secret has expired: create a new one in Entra ID > App registrations > "Certificates & secrets" and update this connection\'s credentials.',
  },
  certificate: {
    'pt-BR': 'O certificado não está registrado no aplicativo (ou a assinatura não confere): envie a parte pública do certificado em "Certificados e segredos" ou atualize esta conexão com o certificado registrado.',
    en: 'The certificate is not registered on the app (or its signature does not match): upload the certificate\'s public part under "Certificates & secrets", or update this connection with the certificate that is registered.',
  },
  application: {
    'pt-BR': 'Nenhum aplicativo habilitado com este ID de cliente: confira o "ID do aplicativo (cliente)" em Registros de aplicativo e se o aplicativo e sua entidade de serviço (Aplicativos empresariais > Propriedades) estão habilitados.',
    en: 'No enabled application with this client ID: check the "Application (client) ID" in App registrations, and that the app and its service principal (Enterprise applications > Properties) are enabled.',
  },
  tenant: {
    'pt-BR': 'O ID do tenant não existe: copie o "ID do locatário (diretório)" da Visão geral do Microsoft Entra ID e atualize esta conexão.',
    en: 'The tenant ID does not exist: copy the "Directory (tenant) ID" from the Microsoft Entra ID overview and update this connection.',
  },
  credentials: FIX_TOKEN,
};

export const FIX_TOKEN_UNAVAILABLE: Texts = {
  'pt-BR': 'O Entra ID está limitando as chamadas (429) ou indisponível (5xx); as credenciais não foram recusadas. Nada a mudar: o Vigia tenta de novo após o Retry-After. Se continuar, veja a integridade do serviço da Microsoft.',
  en: 'Entra ID is throttling (429) or unavailable (5xx); the credentials were not refused. Nothing to change: Vigia tries again after Retry-After. If it lasts, check Microsoft\'s service health.',
};

/** A token failure that is neither a refusal of the credentials nor a known connection cause. */
export const FIX_TOKEN_OTHER: Texts = {
  'pt-BR':
    'O endpoint de token não deu um token, mas não recusou as credenciais (veja o detalhe): confira o host de autoridade nos endpoints desta conexão e a rede desta máquina; as credenciais não precisam mudar.',
  en: "The token endpoint gave no token but did not refuse the credentials (see the detail): check the authority host in this connection's endpoints and this machine's network; the credentials need not change.",
};

const CONNECTION_FIXES: Record<ConnectionCause, Texts> = {
  blocked: {
    'pt-BR':
      'As regras de segurança de destino do Vigia recusam este endereço (privado ou de loopback, como localhost): o Vigia não se conectou, as credenciais não foram testadas. Para o simulador de tenant ou outra ferramenta local, inicie o Vigia com VIGIA_DESTINATION_ALLOWLIST com esse host (por exemplo VIGIA_DESTINATION_ALLOWLIST=localhost; só para desenvolvimento e testes).',
    en: "Vigia's destination-safety rules refuse this address (private or loopback, such as localhost): Vigia did not connect, the credentials were not tried. For the tenant simulator or another local tool, start Vigia with VIGIA_DESTINATION_ALLOWLIST naming that host (e.g. VIGIA_DESTINATION_ALLOWLIST=localhost; development and tests only).",
  },
  tls_untrusted: {
    'pt-BR':
      'O certificado do servidor não é assinado por uma autoridade confiável para o Vigia. Com o simulador de tenant ou outra ferramenta local, inicie o Vigia com NODE_EXTRA_CA_CERTS apontando para a autoridade local (data/local-ca/ca.pem); diante de um proxy que inspeciona TLS, aponte-a para a autoridade desse proxy.',
    en: "The server's certificate is not signed by an authority Vigia trusts. With the tenant simulator or another local tool, start Vigia with NODE_EXTRA_CA_CERTS pointing at the local authority (data/local-ca/ca.pem); behind a TLS-inspecting proxy, point it at that proxy's authority.",
  },
  tls_hostname: {
    'pt-BR': 'O certificado do servidor foi emitido para outro nome de host: confira os endpoints desta conexão (o host deve ser o nome do certificado, por exemplo localhost e não 127.0.0.1) ou gere um certificado para esse nome.',
    en: "The server's certificate was issued for another host name: check this connection's endpoints (the host must be the certificate's name, e.g. localhost rather than 127.0.0.1) or make a certificate for that name.",
  },
  tls_expired: {
    'pt-BR': 'O certificado do servidor expirou ou ainda não é válido: confira o relógio desta máquina; para ferramentas locais, apague o certificado em data/ para que seja gerado de novo.',
    en: "The server's certificate has expired or is not valid yet: check this machine's clock; for local tools, delete the certificate under data/ so it is made again.",
  },
  dns: {
    'pt-BR': 'O nome de host dos endpoints desta conexão não foi encontrado no DNS: confira a grafia e o DNS e a rede desta máquina.',
    en: "The host name in this connection's endpoints was not found in DNS: check its spelling, and this machine's DNS and network.",
  },
  refused: {
    'pt-BR': 'Nada responde nesse endereço e porta: confira os endpoints desta conexão e se o servidor (por exemplo, o simulador de tenant) está em execução.',
    en: "Nothing answers at that address and port: check this connection's endpoints and that the server (for example the tenant simulator) is running.",
  },
  timeout: {
    'pt-BR': 'Sem resposta a tempo: confira a rede, o firewall e as regras de saída desta máquina para os hosts da Microsoft.',
    en: "No answer in time: check this machine's network, firewall and outbound rules to Microsoft's hosts.",
  },
  reset: {
    'pt-BR': 'O servidor fechou a conexão: confira proxies e firewalls entre o Vigia e os hosts da Microsoft.',
    en: "The server closed the connection: check proxies and firewalls between Vigia and Microsoft's hosts.",
  },
  other: {
    'pt-BR': 'A conexão falhou: confira a rede desta máquina e os endpoints desta conexão.',
    en: "The connection failed: check this machine's network and this connection's endpoints.",
  },
};

/** The fix for a failure to get a token or to reach the platform; null when no rule names one. */
export function fixForFailure(err: unknown): Texts | null {
  if (err instanceof TokenRefusedError) return CREDENTIAL_FIXES[err.problem];
  if (err instanceof TokenUnavailableError) return FIX_TOKEN_UNAVAILABLE;
  if (err instanceof VendorCallError && err.connection) return CONNECTION_FIXES[err.connection];
  return null;
}

/** Whether the failure is about reaching the server (no HTTP answer), not about what it answered. */
export function isConnectionFailure(err: unknown): err is VendorCallError {
  return err instanceof VendorCallError && err.connection !== null;
}
