/** The gdflow web console (docs/console.md): the shell, the routes, sign-in. */
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './styles.css';
import { currentLang, setLang, t, useLang } from './i18n.js';
import { href, navigate, useRoute, type Route } from './router.js';
import { session, signOut } from './session.js';
import { SignIn } from './pages/sign-in.js';
import { ToolList, ToolPage, ToolEditor } from './pages/tools.js';
import { WorkflowList, WorkflowPage } from './pages/workflows.js';
import { RunForm } from './pages/run.js';
import { TaskList, TaskPage } from './pages/tasks.js';
import { DataPage } from './pages/data.js';

const SECTIONS = [
  { id: 'tools', label: 'Tools' },
  { id: 'workflows', label: 'Workflows' },
  { id: 'tasks', label: 'Tasks' },
  { id: 'data', label: 'Data' },
] as const;

function App() {
  useLang();
  const route = useRoute();
  const signedIn = session();
  const section = route.parts[0] ?? '';

  useEffect(() => {
    if (!signedIn && section !== 'signin') navigate(href(['signin'], { next: location.hash || undefined }), true);
    else if (signedIn && (section === '' || section === 'signin')) navigate(route.query.get('next') || '#/tasks', true);
  }, [signedIn, section]);

  useEffect(() => {
    document.title = `${titleOf(route)} · gdflow`;
  }, [route, currentLang()]);

  // A new page (not a new query on the same page): start at its top, and move the focus there, as a page load would.
  const path = route.parts.join('/');
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    window.scrollTo(0, 0);
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [path]);

  if (!signedIn || section === 'signin' || section === '') {
    return (
      <div class="signin-shell">
        <LangSwitch />
        <SignIn />
      </div>
    );
  }
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        {t('Skip to content')}
      </a>
      <header class="top">
        <a class="brand" href="#/tasks">
          gdflow
        </a>
        <nav aria-label={t('Sections')}>
          {SECTIONS.map((s) => (
            <a key={s.id} href={`#/${s.id}`} aria-current={section === s.id || (section === 'run' && s.id === 'workflows') ? 'page' : undefined}>
              {t(s.label)}
            </a>
          ))}
        </nav>
        <div class="who">
          <span class="account" title={t('Account / project')}>
            {signedIn.account} / {signedIn.project}
          </span>
          <LangSwitch />
          <button type="button" onClick={signOut}>
            {t('Sign out')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </div>
  );
}

function LangSwitch() {
  const lang = useLang();
  return (
    <button
      type="button"
      class="lang"
      onClick={() => setLang(lang === 'zh' ? 'en' : 'zh')}
      lang={lang === 'zh' ? 'en' : 'zh-CN'}
      aria-label={lang === 'zh' ? 'Switch to English' : '切换到中文'}>
      {lang === 'zh' ? 'English' : '中文'}
    </button>
  );
}

function Page({ route }: { route: Route }) {
  const [section, a, b, c] = route.parts;
  switch (section) {
    case 'tools':
      if (a === undefined) return <ToolList />;
      if (a === '+new') return <ToolEditor key="new" />;
      if (c === 'edit') return <ToolEditor key={`${a}/${b}`} name={a} version={Number(b)} />;
      return <ToolPage key={`${a}/${b}`} name={a} version={b === undefined ? undefined : Number(b)} owner={route.query.get('owner') ?? undefined} />;
    case 'workflows':
      if (a === undefined) return <WorkflowList />;
      return (
        <WorkflowPage
          key={`${a}/${b}`}
          name={a}
          version={b === undefined ? undefined : Number(b)}
          node={route.query.get('node') ?? undefined}
          owner={route.query.get('owner') ?? undefined}
        />
      );
    case 'run':
      if (a === undefined) return <NotFound />;
      return <RunForm key={`${a}/${b}`} name={a} version={b === undefined ? undefined : Number(b)} owner={route.query.get('owner') ?? undefined} />;
    case 'tasks':
      if (a === undefined) return <TaskList query={route.query} />;
      return <TaskPage key={a} taskId={a} job={route.query.get('job') ?? undefined} />;
    case 'data':
      return <DataPage prefix={route.query.get('prefix') ?? '/'} />;
    default:
      return <NotFound />;
  }
}

function NotFound() {
  return (
    <section>
      <h1>{t('Not found')}</h1>
      <p>
        <a href="#/tasks">{t('Tasks')}</a>
      </p>
    </section>
  );
}

function titleOf(route: Route): string {
  const [section, a] = route.parts;
  const label = SECTIONS.find((s) => s.id === section)?.label;
  if (section === 'signin' || !section) return t('Sign in');
  if (section === 'run') return `${t('Run')} ${a ?? ''}`;
  return a && !a.startsWith('+') ? `${a} · ${t(label ?? 'gdflow')}` : t(label ?? 'gdflow');
}

setLang(currentLang());
render(<App />, document.getElementById('app')!);
