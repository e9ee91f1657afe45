import type { ReactNode } from 'react';
import ReactMarkdown from 'react-markdown';

/**
 * Markdown as text people wrote: raw HTML is not rendered (skipped), and link and image URLs
 * pass react-markdown's default filter, which drops `javascript:` and other unsafe schemes.
 */
export function Markdown({ children }: { children: string }): ReactNode {
  return (
    <div className="markdown">
      <ReactMarkdown skipHtml>{children}</ReactMarkdown>
    </div>
  );
}
