import { useState } from 'preact/hooks';
import type { AuditPage as AuditEntries, CreatedPersonalToken, Member, PersonalToken, Role } from '../api.js';
import { orgPath, useConsole } from '../app-context.js';
import { ConfirmAction, Empty, ErrorMessage, Field, ShownOnce, useAction, useFieldErrors, useLoad, usePageTitle, useRemoval } from '../components.js';
import { formatDate } from '../format.js';

const ROLES: Role[] = ['viewer', 'operator', 'owner'];

/** Members of the organization and their roles; owners add, change and remove them. */
export function MembersPage(props: { orgId: string }) {
  const { t, call, can } = useConsole();
  usePageTitle(t('membersTitle'));
  const path = orgPath(props.orgId, '/members');
  const list = useLoad(() => call<Member[]>('GET', path), [path]);
  return (
    <section>
      <h1>{t('membersTitle')}</h1>
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.length === 0 && <Empty>{t('membersEmpty')}</Empty>}
      {list.data && list.data.length > 0 && <MembersTable path={path} members={list.data} onChange={list.reload} />}
      {can('owner') && <AddMemberForm path={path} onSaved={list.reload} />}
    </section>
  );
}

function MembersTable(props: { path: string; members: Member[]; onChange: () => void }) {
  const { t, can } = useConsole();
  const remove = useRemoval(props.path, props.onChange);
  return (
    <>
      <ErrorMessage error={remove.error} />
      <table class="list">
        <thead>
          <tr>
            <th scope="col">{t('email')}</th>
            <th scope="col">{t('role')}</th>
            <th scope="col">
              <span class="sr-only">{t('removeMember')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.members.map((m) => (
            <tr key={m.id}>
              <td data-label={t('email')}>{m.email}</td>
              <td data-label={t('role')}>
                {t(`role_${m.role}`)}
                {m.source === 'identity-provider' && <small> — {t('memberFromIdp')}</small>}
              </td>
              <td>
                {can('owner') && (
                  <ConfirmAction
                    label={t('removeMember')}
                    accessibleLabel={`${t('removeMember')}: ${m.email}`}
                    question={t('removeMemberQuestion', { email: m.email })}
                    danger
                    onConfirm={() => remove.remove(m.id)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function AddMemberForm(props: { path: string; onSaved: () => void }) {
  const { t, call } = useConsole();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const save = useAction();
  const fields = useFieldErrors<'email'>(() => 'member-email');
  const submit = (e: Event) => {
    e.preventDefault();
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
    <form class="card" onSubmit={submit} noValidate>
      <h2>{t('addMember')}</h2>
      <Field id="member-email" label={t('email')} error={fields.errors.email}>
        <input id="member-email" type="email" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="member-role" label={t('role')}>
        <select id="member-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`role_${r}`)}
            </option>
          ))}
        </select>
      </Field>
      <ErrorMessage error={save.error} />
      <button type="submit" disabled={save.busy}>
        {t('save')}
      </button>
    </form>
  );
}

/** The signed-in person's own tokens in this organization: create (shown once), list, revoke. */
export function TokensPage(props: { orgId: string }) {
  const { t, call } = useConsole();
  usePageTitle(t('tokensTitle'));
  const path = orgPath(props.orgId, '/tokens');
  const list = useLoad(() => call<PersonalToken[]>('GET', path), [path]);
  const [shown, setShown] = useState<string | null>(null);
  return (
    <section>
      <h1>{t('tokensTitle')}</h1>
      <p>{t('tokensHelp')}</p>
      {shown && <ShownOnce title={t('tokenTitle')} warning={t('keyOnce')} value={shown} onDone={() => setShown(null)} />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.length === 0 && <Empty>{t('tokensEmpty')}</Empty>}
      {list.data && list.data.length > 0 && <TokensTable path={path} tokens={list.data} onChange={list.reload} />}
      <NewTokenForm
        path={path}
        onCreated={(token) => {
          setShown(token);
          list.reload();
        }}
      />
    </section>
  );
}

function TokensTable(props: { path: string; tokens: PersonalToken[]; onChange: () => void }) {
  const { t, lang } = useConsole();
  const revoke = useRemoval(props.path, props.onChange);
  return (
    <>
      <ErrorMessage error={revoke.error} />
      <table class="list">
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('role')}</th>
            <th scope="col">{t('lastUsed')}</th>
            <th scope="col">{t('expires')}</th>
            <th scope="col">
              <span class="sr-only">{t('revoke')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.tokens.map((k) => (
            <tr key={k.id}>
              <td data-label={t('name')}>{k.name}</td>
              <td data-label={t('role')}>{t(`role_${k.role}`)}</td>
              <td data-label={t('lastUsed')}>{formatDate(lang, k.lastUsedAt, t('never'))}</td>
              <td data-label={t('expires')}>{k.revokedAt ? t('revoked') : formatDate(lang, k.expiresAt)}</td>
              <td>
                {!k.revokedAt && (
                  <ConfirmAction
                    label={t('revoke')}
                    accessibleLabel={`${t('revoke')}: ${k.name}`}
                    question={t('revokeTokenQuestion', { name: k.name })}
                    danger
                    onConfirm={() => revoke.remove(k.id)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function NewTokenForm(props: { path: string; onCreated: (token: string) => void }) {
  const { t, call, can } = useConsole();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [days, setDays] = useState('30');
  const create = useAction();
  const fields = useFieldErrors<'name' | 'days'>((f) => `token-${f}`);
  const submit = (e: Event) => {
    e.preventDefault();
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
    <form class="card" onSubmit={submit} noValidate>
      <h2>{t('createToken')}</h2>
      <Field id="token-name" label={t('name')} error={fields.errors.name}>
        <input id="token-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="token-role" label={t('role')}>
        <select id="token-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
          {ROLES.filter((r) => can(r)).map((r) => (
            <option key={r} value={r}>
              {t(`role_${r}`)}
            </option>
          ))}
        </select>
      </Field>
      <Field id="token-days" label={t('tokenDays')} error={fields.errors.days}>
        <input id="token-days" type="number" min="1" max="366" value={days} onInput={(e) => setDays((e.target as HTMLInputElement).value)} />
      </Field>
      <ErrorMessage error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t('createToken')}
      </button>
    </form>
  );
}

/** The organization's audit log, newest first, filtered by person and action. */
export function AuditPage(props: { orgId: string }) {
  const { t, call, lang } = useConsole();
  usePageTitle(t('auditTitle'));
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [applied, setApplied] = useState({ actor: '', action: '' });
  const query = new URLSearchParams({ pageSize: '100', ...(applied.actor ? { actor: applied.actor } : {}), ...(applied.action ? { action: applied.action } : {}) });
  const path = `${orgPath(props.orgId, '/audit')}?${query}`;
  const list = useLoad(() => call<AuditEntries>('GET', path), [path]);
  return (
    <section>
      <h1>{t('auditTitle')}</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ actor: actor.trim(), action: action.trim() });
        }}
      >
        <Field id="audit-actor" label={t('auditActor')}>
          <input id="audit-actor" value={actor} onInput={(e) => setActor((e.target as HTMLInputElement).value)} />
        </Field>
        <Field id="audit-action" label={t('auditAction')}>
          <input id="audit-action" value={action} onInput={(e) => setAction((e.target as HTMLInputElement).value)} />
        </Field>
        <button type="submit">{t('filter')}</button>
      </form>
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data && list.data.value.length === 0 && <Empty>{t('auditEmpty')}</Empty>}
      {list.data && list.data.value.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">{t('auditWhen')}</th>
              <th scope="col">{t('auditActor')}</th>
              <th scope="col">{t('auditAction')}</th>
              <th scope="col">{t('auditTarget')}</th>
              <th scope="col">{t('auditAddress')}</th>
              <th scope="col">{t('auditChanges')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.value.map((a) => (
              <tr key={a.id}>
                <td data-label={t('auditWhen')}>{formatDate(lang, a.at)}</td>
                <td data-label={t('auditActor')}>{a.actor.label}</td>
                <td data-label={t('auditAction')}>
                  <code>{a.action}</code>
                </td>
                <td data-label={t('auditTarget')}>{a.target ?? '—'}</td>
                <td data-label={t('auditAddress')}>{a.address ?? '—'}</td>
                <td data-label={t('auditChanges')}>
                  <code>{JSON.stringify(a.changes)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
