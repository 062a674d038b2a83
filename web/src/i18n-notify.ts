/** Texts of the organization's notification settings and of chat / e-mail destinations (issue 37). */
export const notifyPt = {
  navSettings: 'Configurações',
  settingsTitle: 'Configurações da organização',
  settingsHelp: 'Idioma, fuso horário e reconhecimento por link das mensagens de Teams, Slack e e-mail.',
  orgLanguage: 'Idioma das mensagens',
  orgLanguagePt: 'Português (Brasil)',
  orgLanguageEn: 'Inglês',
  orgTimeZone: 'Fuso horário',
  orgTimeZoneHint: 'Nome IANA, por exemplo America/Sao_Paulo.',
  orgTimeZoneInvalid: 'Informe um fuso horário IANA, por exemplo America/Sao_Paulo.',
  ackRequiresSignIn: 'Exigir entrar no Vigia para reconhecer por link',
  ackRequiresSignInHint: 'Desligado: quem recebe a mensagem reconhece com um clique e confirmação. Ligado: o link leva ao login do console antes.',
  settingsSaved: 'Configurações salvas.',
};

export const notifyEn: typeof notifyPt = {
  navSettings: 'Settings',
  settingsTitle: 'Organization settings',
  settingsHelp: 'Language, time zone and acknowledge links of the Teams, Slack and e-mail messages.',
  orgLanguage: 'Language of messages',
  orgLanguagePt: 'Portuguese (Brazil)',
  orgLanguageEn: 'English',
  orgTimeZone: 'Time zone',
  orgTimeZoneHint: 'IANA name, for example America/Sao_Paulo.',
  orgTimeZoneInvalid: 'Give an IANA time zone, for example America/Sao_Paulo.',
  ackRequiresSignIn: 'Require signing in to Vigia to acknowledge from a link',
  ackRequiresSignInHint: 'Off: whoever receives the message acknowledges with a click and a confirmation. On: the link goes through the console sign-in first.',
  settingsSaved: 'Settings saved.',
};
