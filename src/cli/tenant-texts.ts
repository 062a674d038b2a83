/**
 * What `vigia tenants add|connect|set-credentials|check` print, in English and Portuguese
 * (`--lang pt-BR`): every word of the verdict, the labels of its items and its last line. The
 * check's titles, details and fixes come from the server in both languages (the error catalog,
 * src/monitoring/messages/errors.ts).
 */
export type CliLang = 'en' | 'pt-BR';

const TEXTS = {
  en: {
    ok: 'ok     ',
    missing: 'MISSING',
    busy: 'BUSY   ',
    failed: 'FAILED ',
    fix: 'fix',
    allInPlace: 'everything Vigia needs is in place',
    somethingMissing: 'something is missing: apply the fixes above and run the check again',
    savedAnyway: 'the new credentials are saved anyway: fix what the check names, or set them again',
    savedCredentials: (name: string, id: string, type: string) => `saved new credentials of ${name} (${id}, ${type}, stored sealed; never shown again); the collectors use them from their next run`,
    connected: (name: string, id: string, mode: string, type: string) => `connected ${name}: ${id} (${mode} mode, ${type} stored sealed; it is never shown again)`,
    collectors: 'collectors',
    every: (name: string, s: number) => `${name} every ${s} s`,
    none: 'none',
    signInOk: 'the token endpoint accepted the credentials',
    signInFailed: 'the connection is saved anyway, but the token endpoint did not give a token: fix what the check names, then: vigia tenants set-credentials',
    next: 'next',
  },
  'pt-BR': {
    ok: 'ok     ',
    missing: 'FALTA  ',
    busy: 'OCUPADO',
    failed: 'FALHOU ',
    fix: 'correção',
    allInPlace: 'tudo de que o Vigia precisa está no lugar',
    somethingMissing: 'falta algo: aplique as correções acima e verifique de novo',
    savedAnyway: 'as novas credenciais foram salvas mesmo assim: corrija o que a verificação aponta, ou defina-as de novo',
    savedCredentials: (name: string, id: string, type: string) =>
      `novas credenciais de ${name} salvas (${id}, ${type === 'secret' ? 'segredo' : 'certificado'}, guardadas seladas; nunca mais exibidas); os coletores as usam a partir da próxima execução`,
    connected: (name: string, id: string, mode: string, type: string) =>
      `${name} conectado: ${id} (modo ${mode}, ${type === 'secret' ? 'segredo' : 'certificado'} guardado selado; nunca mais é exibido)`,
    collectors: 'coletores',
    every: (name: string, s: number) => `${name} a cada ${s} s`,
    none: 'nenhum',
    signInOk: 'o endpoint de token aceitou as credenciais',
    signInFailed: 'a conexão foi salva mesmo assim, mas o endpoint de token não deu um token: corrija o que a verificação aponta e depois: vigia tenants set-credentials',
    next: 'próximo passo',
  },
} as const;

export const cliTexts = (lang: CliLang) => TEXTS[lang];
