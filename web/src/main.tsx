// The dashboard: login, the interface picked, and one page per hash route
// (#/hosts?page=2 …, so a page's state is in its address and survives a
// reload). Served as static files by the monitoring server at `/`.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

import { call, login, logout, whenLoggedOut } from './api.js';
import { Err } from './components/ui.js';
import { AlertsPage } from './pages/alerts.js';
import { ChartsPage } from './pages/charts.js';
import { EgressPage } from './pages/egress.js';
import { FlowsPage } from './pages/flows.js';
import { HostPage } from './pages/host.js';
import { HostsPage } from './pages/hosts.js';
import { InterfacesPage } from './pages/interfaces.js';
import { OverviewPage } from './pages/overview.js';
import { readRoute } from './router.js';
import './style.css';

const PAGES: { path: string; label: string }[] = [
  { path: '/', label: 'Overview' },
  { path: '/hosts', label: 'Hosts' },
  { path: '/flows', label: 'Flows' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/charts', label: 'Charts' },
  { path: '/egress', label: 'Egress' },
  { path: '/interfaces', label: 'Interfaces' },
];

function Login({ onDone }: { onDone: () => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    try {
      await login(String(f.get('username') ?? ''), String(f.get('password') ?? ''));
      onDone();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form id="login" onSubmit={submit} data-testid="login">
        <h1>flowgate</h1>
        <label>
          User
          <input name="username" autocomplete="username" required autofocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" disabled={busy}>
          Log in
        </button>
        {error && (
          <p class="error" data-testid="login-error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

interface Iface {
  ifid: number;
  ifname: string;
  name: string;
}

function App() {
  // no session cookie: the login at once (no request that would only be refused)
  const [authed, setAuthed] = useState<boolean | undefined>(/(^|;\s*)session=/.test(document.cookie) ? undefined : false);
  const [route, setRoute] = useState(readRoute());
  const [ifaces, setIfaces] = useState<Iface[]>([]);
  const [ifid, setIfid] = useState(Number(localStorage.getItem('flowgate.ifid') ?? 0));
  const [error, setError] = useState<string>();

  useEffect(() => {
    whenLoggedOut(() => setAuthed(false));
    const on = () => setRoute(readRoute());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);

  // the session (cookie) is good when the interface list answers
  useEffect(() => {
    if (authed === false) return;
    call<Iface[]>('get/ntopng/interfaces').then(
      (l) => {
        setIfaces(l);
        if (l.length && !l.some((i) => i.ifid === ifid)) setIfid(l[0]!.ifid);
        setAuthed(true);
      },
      (e: Error & { rc?: number }) => (e.rc === -3 ? setAuthed(false) : (setError(e.message), setAuthed(true))),
    );
  }, [authed]);

  if (authed === undefined) return <p class="loading">Loading…</p>;
  if (!authed) return <Login onDone={() => setAuthed(true)} />;

  const pick = (v: number) => {
    localStorage.setItem('flowgate.ifid', String(v));
    setIfid(v);
  };
  const p = { ifid, route };
  const top = `/${route.path.split('/')[1] ?? ''}`;
  let page;
  if (route.path === '/') page = <OverviewPage {...p} />;
  else if (route.path === '/hosts') page = <HostsPage {...p} />;
  else if (route.path.startsWith('/host/')) page = <HostPage {...p} />;
  else if (route.path === '/flows') page = <FlowsPage {...p} />;
  else if (route.path === '/alerts') page = <AlertsPage {...p} />;
  else if (route.path === '/charts') page = <ChartsPage {...p} />;
  else if (route.path === '/egress') page = <EgressPage {...p} />;
  else if (route.path === '/interfaces') page = <InterfacesPage {...p} />;
  else page = <p data-testid="not-found">No page {route.path}</p>;

  return (
    <div class="layout">
      <header>
        <a class="brand" href="#/">
          flowgate
        </a>
        <nav>
          {PAGES.map((x) => (
            <a href={`#${x.path}`} class={top === x.path || (x.path === '/hosts' && top === '/host') ? 'active' : ''}>
              {x.label}
            </a>
          ))}
        </nav>
        <select data-testid="ifid" value={ifid} onChange={(e) => pick(Number((e.target as HTMLSelectElement).value))} aria-label="Interface">
          {ifaces.map((i) => (
            <option value={i.ifid}>{i.name || i.ifname}</option>
          ))}
        </select>
        <span class="user">{localStorage.getItem('flowgate.user') ?? ''}</span>
        <button data-testid="logout" onClick={() => logout().then(() => setAuthed(false))}>
          Log out
        </button>
      </header>
      <main>
        <Err error={error} />
        {page}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
