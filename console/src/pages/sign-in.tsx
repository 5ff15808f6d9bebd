/** Sign-in: an access key (ID and secret) and the project to work in. The key is checked with the server first. */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { errorText, t } from '../i18n.js';
import { navigate, parseHash } from '../router.js';
import { signIn } from '../session.js';

export function SignIn() {
  const [id, setId] = useState('');
  const [secret, setSecret] = useState('');
  const [project, setProject] = useState('default');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (!id.trim() || !secret) {
      setError(t('Enter both the access key ID and its secret.'));
      return;
    }
    setBusy(true);
    try {
      await signIn(id.trim(), secret, project.trim() || 'default');
      setSecret('');
      navigate(parseHash(location.hash).query.get('next') || '#/tasks', true);
    } catch (failure) {
      setError(signInMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <h1>{t('gdflow console')}</h1>
      <p class="muted">{t('Sign in with an access key of your account (gdflow admin create-account or create-key prints one).')}</p>
      {/* submit shows its own failures on the page: nothing is left to the returned promise. */}
      <form onSubmit={(event) => void submit(event)} noValidate aria-describedby={error ? 'signin-error' : undefined}>
        <label for="key-id">{t('Access key ID')}</label>
        <input id="key-id" name="access_key_id" autoComplete="username" value={id} onInput={(e) => setId(e.currentTarget.value)} required spellcheck={false} />
        <label for="key-secret">{t('Access key secret')}</label>
        <input
          id="key-secret"
          name="access_key_secret"
          type="password"
          autoComplete="current-password"
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
          required
        />
        <label for="project">{t('Project')}</label>
        <input id="project" name="project" value={project} onInput={(e) => setProject(e.currentTarget.value)} spellcheck={false} />
        {error && (
          <div class="error" role="alert" id="signin-error">
            {error}
          </div>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('Signing in…') : t('Sign in')}
        </button>
      </form>
      <p class="muted small">
        {t('The secret stays in this browser tab (sessionStorage) and signs each request; it is never sent. Closing the tab or signing out forgets it.')}
      </p>
    </main>
  );
}

function signInMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'SignatureDoesNotMatch') return t('The access key secret is wrong for this access key ID. Check it and try again.');
    if (error.code === 'InvalidAccessKeyId') return t('There is no access key with this ID (or it was revoked).');
    if (error.code === 'InvalidAuthorization') return t('The access key ID is not valid.');
  }
  return errorText(error);
}
