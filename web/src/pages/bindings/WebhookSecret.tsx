import { useState, type ReactNode } from 'react';

/** A webhook URL the server shows once (create or rotate): told so, copyable, gone when dismissed. */
export function WebhookSecret({ url, onDismiss }: { url: string; onDismiss(): void }): ReactNode {
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice notice-secret" role="alert" aria-label="Webhook URL">
      <p><strong>Webhook URL — shown only this once.</strong> Store it now: the token in it is kept hashed and cannot be shown again (rotate to get a new one).</p>
      <p><code className="secret" data-testid="webhook-url">{url}</code></p>
      <div className="actions">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(url).then(() => setCopied(true), () => setCopied(false))}>{copied ? 'Copied' : 'Copy URL'}</button>
        <button type="button" onClick={onDismiss}>I have stored it</button>
      </div>
    </div>
  );
}
