/**
 * The agent's profile: name, description and image, which the public ERC-8004
 * registration file presents while the wallet that set them owns the agent; links to that file and
 * to the A2A Agent Card made from the same profile, beside the agent's MCP URL. The image is not previewed: the page loads nothing from other origins.
 */
import { useState } from 'hono/jsx/dom';
import { type AgentProfile, type AgentRegistration, agentMcpUrl } from '../../client';
import { isPlainText, isProfileImage, MAX_DESCRIPTION, MAX_NAME } from '../../profile/rules';
import { TextAreaField } from '../ui/controls';
import { Field } from '../ui/field';
import { when } from '../ui/format';
import { useAction, useLoad } from '../ui/load';
import { ErrorNotice, Status } from '../ui/notice';
import type { PageProps } from './page';
import '../settings.css';

/** What the gateway holds: the profile and the registration file, each null while there is none. */
interface Stored {
  profile: AgentProfile | null;
  registration: AgentRegistration | null;
}

export function ProfilePage({ agent }: PageProps) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [image, setImage] = useState('');
  const [shown, setShown] = useState(false);
  const [status, setStatus] = useState<string | undefined>(undefined);
  const loaded = useLoad(
    async (signal): Promise<Stored> => {
      // The profile, and the registration file built from it, are asked only once one is set
      // (`configured.profile`): an agent without one costs no 404 for the console to log.
      const { configured } = await agent.getAgent({ signal });
      const profile = configured.profile ? await agent.getProfile({ signal }) : null;
      const registration = profile ? await agent.getRegistration({ signal }) : null;
      if (profile) {
        setName(profile.name);
        setDescription(profile.description);
        setImage(profile.image ?? '');
      }
      return { profile, registration };
    },
    [agent],
  );
  const save = useAction();
  const errors = {
    name: isPlainText(name, false) && name.length <= MAX_NAME ? undefined : `A name is 1 to ${MAX_NAME} characters on one line.`,
    description:
      isPlainText(description, true) && description.length <= MAX_DESCRIPTION
        ? undefined
        : `A description is 1 to ${MAX_DESCRIPTION} characters.`,
    image:
      image.trim() === '' || isProfileImage(image.trim())
        ? undefined
        : 'An image is an https URL, or a small data: URI of a PNG, JPEG, GIF or WebP image.',
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setShown(true);
    setStatus(undefined);
    if (errors.name || errors.description || errors.image) return;
    const ok = await save.run(async () => {
      await agent.setProfile({ name, description, image: image.trim() === '' ? null : image.trim() });
    });
    if (ok) {
      setStatus('Profile saved: the registration file presents it (cached up to a minute).');
      loaded.reload();
    }
  };

  const registrationUrl = `${location.origin}${agent.path}/registration.json`;
  const mcpUrl = agentMcpUrl(location.origin, agent.collection, agent.tokenId);
  const cardUrl = `${location.origin}${agent.path}/.well-known/agent-card.json`;
  const registration = loaded.data?.registration;
  return (
    <>
      <section class="card" aria-labelledby="profile-title">
        <h1 id="profile-title">Profile</h1>
        <ErrorNotice problem={loaded.problem} />
        {loaded.data?.profile ? (
          <p class="muted">
            Set {when(loaded.data.profile.updatedAt)} by <span class="mono">{loaded.data.profile.setByWallet}</span>.
          </p>
        ) : loaded.data ? (
          <p class="muted">No profile yet: the registration file answers 404 until you set one.</p>
        ) : null}
        <form onSubmit={(e: Event) => void submit(e)} novalidate>
          <Field
            label="Name"
            name="profileName"
            value={name}
            onInput={setName}
            placeholder="Warranty desk"
            error={shown ? errors.name : undefined}
          />
          <TextAreaField label="Description" name="profileDescription" value={description} onInput={setDescription} rows={4} />
          {shown && errors.description ? <small class="field-error">{errors.description}</small> : null}
          <Field
            label="Image"
            name="profileImage"
            value={image}
            onInput={setImage}
            placeholder="https://example.com/agent.png"
            hint="Optional: an https URL or a small data: URI (not previewed here)."
            error={shown ? errors.image : undefined}
          />
          <button type="submit" class="primary" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save profile'}
          </button>
        </form>
        <Status text={status} />
        <ErrorNotice problem={save.problem} />
      </section>
      <section class="card" aria-labelledby="profile-links-title">
        <h2 id="profile-links-title">On the network</h2>
        <dl class="facts">
          <dt>Registration file</dt>
          <dd>
            <a href={registrationUrl} target="_blank" rel="noopener noreferrer" class="mono">
              {registrationUrl}
            </a>
            <div class="meta">
              {registration
                ? registration.active
                  ? 'active: it presents your profile'
                  : 'inactive: the profile was set by an earlier owner; save it again'
                : 'not served yet (no profile)'}
            </div>
          </dd>
          <dt>MCP URL</dt>
          <dd>
            <span class="mono">{mcpUrl}</span>
            <div class="meta">For MCP clients, with an agent key of scope mcp (Agent keys) or OAuth.</div>
          </dd>
          <dt>A2A Agent Card</dt>
          <dd>
            <a
              href={cardUrl}
              target="_blank"
              rel="noopener noreferrer"
              class="mono"
              aria-label={`A2A Agent Card (opens in a new tab): ${cardUrl}`}
            >
              {cardUrl}
            </a>
            <div class="meta">
              {registration
                ? `For other agents (A2A): they read it, then send messages to ${location.origin}${agent.path}/a2a with an agent key of scope reply or OAuth.`
                : 'not served yet (no profile)'}
            </div>
          </dd>
        </dl>
      </section>
    </>
  );
}
