import { ApprovalsPage } from './pages/approvals-page.js';
import { CodebasesPage } from './pages/codebases-page.js';
import { HooksPage } from './pages/hooks-page.js';
import { RunPage } from './pages/run-page.js';
import { RunsPage } from './pages/runs-page.js';
import { SchedulesPage } from './pages/schedules-page.js';
import { SettingsPage } from './pages/settings-page.js';
import { StatusPage } from './pages/status-page.js';
import { WorkflowEditPage } from './pages/workflow-edit-page.js';
import { WorkflowPage } from './pages/workflow-page.js';
import { WorkflowsPage } from './pages/workflows-page.js';
import { lazyPage } from './lazy-page.js';
import { streamState } from './live-stream.js';
import { followLink, location } from './router.js';

const sections = [
  { href: '/', label: 'Runs', match: (path: string) => path === '/' || path.startsWith('/runs/') },
  { href: '/workflows', label: 'Workflows', match: (path: string) => path === '/workflows' || path.startsWith('/workflows/') || path === '/new-workflow' },
  { href: '/approvals', label: 'Approvals', match: (path: string) => path === '/approvals' },
  { href: '/schedules', label: 'Schedules', match: (path: string) => path === '/schedules' },
  { href: '/hooks', label: 'Webhooks', match: (path: string) => path === '/hooks' },
  { href: '/status', label: 'Health', match: (path: string) => path === '/status' },
  { href: '/chat', label: 'Chat', match: (path: string) => path === '/chat' || path.startsWith('/chat/') },
  { href: '/codebases', label: 'Codebases', match: (path: string) => path === '/codebases' },
  { href: '/settings', label: 'Settings', match: (path: string) => path === '/settings' },
];

/** The chat page, with the markdown libraries it needs, is its own file: loaded when first opened. */
const ChatPage = lazyPage(() => import('./pages/chat-page.js').then((m) => m.ChatPage));

const streamWords = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…' } as const;

function Page() {
  const { path, query } = location.value;
  const run = /^\/runs\/([^/]+)\/?$/.exec(path);
  if (run) {
    const runId = decodeURIComponent(run[1]!);
    return <RunPage key={runId} runId={runId} selected={query.get('node') ?? undefined} />;
  }
  const workflow = /^\/workflows\/([^/]+)\/?$/.exec(path);
  if (workflow) {
    const name = decodeURIComponent(workflow[1]!);
    return <WorkflowPage key={name} name={name} />;
  }
  const edit = /^\/workflows\/([^/]+)\/edit\/?$/.exec(path);
  if (edit) {
    const name = decodeURIComponent(edit[1]!);
    return <WorkflowEditPage key={`edit-${name}`} name={name} />;
  }
  if (path === '/new-workflow') return <WorkflowEditPage key="new" name={undefined} />;
  if (path === '/workflows') return <WorkflowsPage />;
  if (path === '/approvals') return <ApprovalsPage />;
  if (path === '/schedules') return <SchedulesPage />;
  if (path === '/hooks') return <HooksPage />;
  if (path === '/status') return <StatusPage />;
  if (path === '/') return <RunsPage />;
  if (path === '/codebases') return <CodebasesPage />;
  if (path === '/settings') return <SettingsPage />;
  const chat = /^\/chat(?:\/([^/]+))?\/?$/.exec(path);
  if (chat) return <ChatPage conversationId={chat[1] ? decodeURIComponent(chat[1]) : undefined} />;
  return (
    <main class="page">
      <p>No dashboard page at {path}.</p>
      <a href="/">Go to the runs</a>
    </main>
  );
}

/** The frame every page sits in: the sections, the stream's state, the page of the address. */
export function App() {
  const path = location.value.path;
  return (
    <div class="shell" onClick={followLink}>
      <header class="top">
        <a class="brand" href="/">
          Cairn
        </a>
        <nav class="sections" aria-label="Sections">
          {sections.map((s) => (
            <a key={s.href} href={s.href} class={s.match(path) ? 'active' : ''} aria-current={s.match(path) ? 'page' : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <span class={`stream stream-${streamState.value}`} data-stream={streamState.value} title="The live event stream">
          {streamWords[streamState.value]}
        </span>
      </header>
      <Page />
    </div>
  );
}
