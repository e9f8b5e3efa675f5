/**
 * Login with the browser's wallet (Sign-In with Ethereum, as every login of the gateway): the deployment's chain from GET /health, the
 * wallet's account, its chain checked (and a switch asked for), then SIWE through the client's
 * `login()` (init, personal_sign, finish).
 */
import { useState } from 'hono/jsx/dom';
import type { LoginSession } from '../../client';
import { publicClient } from '../gateway';
import { type Problem, problemOf } from '../ui/errors';
import { ErrorNotice, Status } from '../ui/notice';
import { ensureChain, requestAccount, walletAccount } from '../wallet';

export function LoginPage({ notice, onLogin }: { notice: string | undefined; onLogin: (session: LoginSession) => void }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);

  const logIn = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      setStatus('Asking the gateway for its chain…');
      const { chainId } = await publicClient().getHealth();
      setStatus('Asking the wallet for its account…');
      const address = await requestAccount();
      setStatus(`Checking the wallet is on chain ${chainId}…`);
      await ensureChain(chainId);
      setStatus('Sign the login message in your wallet…');
      const session = await publicClient({ account: walletAccount(address), chainId }).login();
      setStatus(undefined);
      onLogin(session);
    } catch (err) {
      setStatus(undefined);
      setProblem(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card narrow" aria-labelledby="login-title">
      <h1 id="login-title">Log in</h1>
      <p>
        Sign in with the wallet that owns your agent. The gateway sends a message to sign (Sign-In with Ethereum); nothing is paid and no
        transaction is sent.
      </p>
      {notice ? <p class="notice warn">{notice}</p> : null}
      <button type="button" id="login" class="primary" disabled={busy} onClick={() => void logIn()}>
        {busy ? 'Logging in…' : 'Connect wallet and log in'}
      </button>
      <Status text={status} />
      <ErrorNotice problem={problem} />
    </section>
  );
}
