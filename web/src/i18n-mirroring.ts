/** Texts of the replication lag thresholds (mirroring collector) on the Tenant page, spread into i18n.ts's tables. */
export const mirroringPt = {
  mlTitle: 'Atraso de replicação (espelhamento)',
  mlHelp: 'Uma tabela espelhada com atraso acima do primeiro limite abre um incidente informativo; acima do segundo, um incidente de erro.',
  mlInfo: 'Limite informativo (segundos)',
  mlError: 'Limite de erro (segundos)',
  mlSave: 'Salvar limites',
  mlSaved: 'Limites de atraso de {name} salvos.',
  mlWhole: '{field} deve ser um número inteiro de segundos, maior que zero.',
  mlOrder: 'O limite informativo deve ser menor que o limite de erro.',
};

export const mirroringEn: typeof mirroringPt = {
  mlTitle: 'Replication lag (mirroring)',
  mlHelp: 'A mirrored table lagging more than the first threshold opens an info incident; more than the second, an error incident.',
  mlInfo: 'Info threshold (seconds)',
  mlError: 'Error threshold (seconds)',
  mlSave: 'Save thresholds',
  mlSaved: 'Lag thresholds of {name} saved.',
  mlWhole: '{field} must be a whole number of seconds above zero.',
  mlOrder: 'The info threshold must be less than the error threshold.',
};
