import { useState } from 'preact/hooks';
import type { AuditPage as AuditEntries, CreatedPersonalToken, Member, PersonalToken, Role } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { Field, ShownOnce, useAction, useFieldErrors } from '../components.js';
import { ActionForm, SelectField, TextField } from '../forms.js';
import { DataTable, ListPage, RemovableTable, useGet } from '../lists.js';
import { formatDate } from '../format.js';

const ROLES: Role[] = ['viewer', 'operator', 'owner'];

/** Members of the organization and their roles; owners add, change and remove them. */
export function MembersPage(props: { orgId: string }) {
  const { t, can } = useConsole();
  const path = orgPath(props.orgId, '/members');
  const list = useGet<Member[]>(path);
  return (
    <ListPage title={t('membersTitle')} list={list} empty={t('membersEmpty')} after={can('owner') && <AddMemberForm path={path} onSaved={list.reload} />}>
      {(members) => (
        <RemovableTable
          path={path}
          onChange={list.reload}
          rows={members}
          rowKey={(m) => m.id}
          columns={[
            { label: t('email'), cell: (m) => m.email },
            {
              label: t('role'),
              cell: (m) => (
                <>
                  {t(`role_${m.role}`)}
                  {m.source === 'identity-provider' && <small> — {t('memberFromIdp')}</small>}
                </>
              ),
            },
          ]}
          removal={{ label: t('removeMember'), danger: true, question: (m) => t('removeMemberQuestion', { email: m.email }), name: (m) => m.email, id: (m) => m.id, offered: () => can('owner') }}
        />
      )}
    </ListPage>
  );
}

function AddMemberForm(props: { path: string; onSaved: () => void }) {
  const { t, call } = useConsole();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const save = useAction();
  const fields = useFieldErrors<'email'>(() => 'member-email');
  const submit = () => {
    const address = email.trim();
    const problem = !address ? t('fieldRequired', { field: t('email') }) : /^[^\s@]+@[^\s@]+$/.test(address) ? null : t('emailInvalid', { field: t('email') });
    if (!fields.check(problem ? { email: problem } : {})) return;
    void save.run(async () => {
      await call('PUT', props.path, { email: email.trim(), role });
      setEmail('');
      props.onSaved();
    });
  };
  return (
    <ActionForm class="card" titleId="add-member" title={t('addMember')} action={save} submitLabel={t('save')} onSubmit={submit}>
      <TextField id="member-email" label={t('email')} error={fields.errors.email} type="email" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
      <SelectField id="member-role" label={t('role')} value={role} onValue={(v) => setRole(v as Role)} options={ROLES.map((r) => [r, t(`role_${r}`)] as const)} />
    </ActionForm>
  );
}

/** The signed-in person's own tokens in this organization: create (shown once), list, revoke. */
export function TokensPage(props: { orgId: string }) {
  const { t, lang } = useConsole();
  const path = orgPath(props.orgId, '/tokens');
  const list = useGet<PersonalToken[]>(path);
  const [shown, setShown] = useState<string | null>(null);
  const created = (token: string) => {
    setShown(token);
    list.reload();
  };
  return (
    <ListPage
      title={t('tokensTitle')}
      list={list}
      empty={t('tokensEmpty')}
      before={
        <>
          <p>{t('tokensHelp')}</p>
          {shown && <ShownOnce title={t('tokenTitle')} warning={t('keyOnce')} value={shown} onDone={() => setShown(null)} />}
        </>
      }
      after={<NewTokenForm path={path} onCreated={created} />}
    >
      {(tokens) => (
        <RemovableTable
          path={path}
          onChange={list.reload}
          rows={tokens}
          rowKey={(k) => k.id}
          columns={[
            { label: t('name'), cell: (k) => k.name },
            { label: t('role'), cell: (k) => t(`role_${k.role}`) },
            { label: t('lastUsed'), cell: (k) => formatDate(lang, k.lastUsedAt, t('never')) },
            { label: t('expires'), cell: (k) => (k.revokedAt ? t('revoked') : formatDate(lang, k.expiresAt)) },
          ]}
          removal={{ label: t('revoke'), danger: true, question: (k) => t('revokeTokenQuestion', { name: k.name }), name: (k) => k.name, id: (k) => k.id, offered: (k) => !k.revokedAt }}
        />
      )}
    </ListPage>
  );
}

function NewTokenForm(props: { path: string; onCreated: (token: string) => void }) {
  const { t, call, can } = useConsole();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [days, setDays] = useState('30');
  const create = useAction();
  const fields = useFieldErrors<'name' | 'days'>((f) => `token-${f}`);
  const submit = () => {
    const found: { name?: string; days?: string } = {};
    if (!name.trim()) found.name = t('fieldRequired', { field: t('name') });
    if (!/^\d{1,3}$/.test(days.trim()) || Number(days) < 1 || Number(days) > 366) found.days = t('numberRange', { field: t('tokenDays'), min: 1, max: 366 });
    if (!fields.check(found)) return;
    void create.run(async () => {
      const expiresAt = new Date(Date.now() + Number(days) * 86_400_000).toISOString();
      const made = await call<CreatedPersonalToken>('POST', props.path, { name: name.trim(), role, expiresAt });
      setName('');
      props.onCreated(made.token);
    });
  };
  return (
    <ActionForm class="card" titleId="create-token" title={t('createToken')} action={create} submitLabel={t('createToken')} onSubmit={submit}>
      <TextField id="token-name" label={t('name')} error={fields.errors.name} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <SelectField
        id="token-role"
        label={t('role')}
        value={role}
        onValue={(v) => setRole(v as Role)}
        options={ROLES.filter((r) => can(r)).map((r) => [r, t(`role_${r}`)] as const)}
      />
      <Field id="token-days" label={t('tokenDays')} error={fields.errors.days}>
        <input id="token-days" type="number" min="1" max="366" value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
      </Field>
    </ActionForm>
  );
}

/** The organization's audit log, newest first, filtered by person and action. */
export function AuditPage(props: { orgId: string }) {
  const { t, lang } = useConsole();
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [applied, setApplied] = useState({ actor: '', action: '' });
  const query = new URLSearchParams({ pageSize: '100', ...(applied.actor ? { actor: applied.actor } : {}), ...(applied.action ? { action: applied.action } : {}) });
  const path = `${orgPath(props.orgId, '/audit')}?${query}`;
  const list = useGet<AuditEntries>(path);
  const filters = (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        setApplied({ actor: actor.trim(), action: action.trim() });
      }}
    >
      <TextField id="audit-actor" label={t('auditActor')} value={actor} onInput={(e) => setActor((e.target as HTMLInputElement).value)} />
      <TextField id="audit-action" label={t('auditAction')} value={action} onInput={(e) => setAction((e.target as HTMLInputElement).value)} />
      <button type="submit">{t('filter')}</button>
    </form>
  );
  return (
    <ListPage title={t('auditTitle')} list={list} empty={t('auditEmpty')} count={(d) => d.value.length} before={filters}>
      {(d) => (
        <DataTable
          list
          rows={d.value}
          rowKey={(a) => a.id}
          columns={[
            { label: t('auditWhen'), cell: (a) => formatDate(lang, a.at) },
            { label: t('auditActor'), cell: (a) => a.actor.label },
            { label: t('auditAction'), cell: (a) => <code>{a.action}</code> },
            { label: t('auditTarget'), cell: (a) => a.target ?? '—' },
            { label: t('auditAddress'), cell: (a) => a.address ?? '—' },
            { label: t('auditChanges'), cell: (a) => <code>{JSON.stringify(a.changes)}</code> },
          ]}
        />
      )}
    </ListPage>
  );
}
