/**
 * @-mentions in a comment (no I/O). An agent is mentioned as `@agent:<id>`, a user as
 * `@user:<id>`; ids are letters, digits, `_`, `-` and `.` (up to 128). A mention inside an
 * e-mail address or a code span is not a mention.
 */

export interface Mention {
  type: 'agent' | 'user';
  id: string;
}

const MENTION = /(^|[^\w@`])@(agent|user):([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})/g;

/** Distinct mentions in order of first appearance. */
export function parseMentions(markdown: string): Mention[] {
  const text = withoutCode(markdown);
  const seen = new Set<string>();
  const mentions: Mention[] = [];
  for (const match of text.matchAll(MENTION)) {
    const type = match[2] as Mention['type'];
    const id = match[3].replace(/[.-]+$/, ''); // a sentence's full stop is not part of the id
    const key = `${type}:${id}`;
    if (!id || seen.has(key)) continue;
    seen.add(key);
    mentions.push({ type, id });
  }
  return mentions;
}

/** Fenced blocks and inline code spans blanked out, so examples in code mention no one. */
function withoutCode(markdown: string): string {
  return markdown.replace(/```[\s\S]*?(```|$)/g, ' ').replace(/`[^`\n]*`/g, ' ');
}
