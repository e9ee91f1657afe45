/**
 * The scripted provider as a standalone server, for a keyless demo or manual testing:
 *
 *   npm run provider:scripted -- --port 4010 [--script replies.json] [--host 127.0.0.1]
 *
 * It speaks the OpenAI chat-completions API (`POST /v1/chat/completions`) and the Anthropic
 * messages API (`POST /v1/messages`). `--script` is a JSON array of replies (see
 * scripted-provider.ts: `{"text": ...}`, `{"tool_calls": [...]}`, `{"error": 429, "retry_after": 1}`,
 * ...) answered in order; after them, or without a script, every request gets the default
 * answer: it echoes the last user message, calls the tool X when that message says
 * "use tool X" (and X was declared; arguments from "use tool X with {json}"), reports a tool's
 * result when the last message is one, and answers a structured-output request with a value
 * shaped like its schema. Any key is accepted.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startScriptedProvider, type RecordedRequest, type StaticReply } from './scripted-provider.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4010' }, script: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not '${values.port}'`);

const provider = await startScriptedProvider({ port, host: values.host, fallback: defaultReply });
if (values.script) {
  const script = JSON.parse(readFileSync(values.script, 'utf8')) as unknown;
  if (!Array.isArray(script)) throw new Error(`${values.script} must hold a JSON array of replies`);
  provider.replies.push(...(script as StaticReply[]));
}
console.log(`scripted provider on ${provider.url}: OpenAI base ${provider.url}/v1, Anthropic base ${provider.url}${values.script ? `, ${provider.replies.length} scripted replies first` : ''}`);
const stop = () => void provider.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

/** The default answer (see above), for either API. */
function defaultReply(request: RecordedRequest): StaticReply {
  const body = request.body ?? {};
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1);
  const toolResult = lastToolResult(last);
  if (toolResult !== undefined) return { text: `The tool answered: ${toolResult.slice(0, 2000)}` };
  const said = textOf(last?.content);
  const schema = body.response_format?.json_schema?.schema ?? body.output_config?.format?.schema ?? body.tools?.find((t: any) => t.name === 'json' && body.tool_choice?.name === 'json')?.input_schema;
  if (schema) return { object: sampleOf(schema) };
  const asked = /use tool ([\w-]+)(?: with (\{.*\}))?/is.exec(said);
  const declared: string[] = (body.tools ?? []).map((t: any) => t.function?.name ?? t.name).filter(Boolean);
  if (asked && declared.includes(asked[1])) {
    let args: unknown = {};
    try {
      args = asked[2] ? JSON.parse(asked[2]) : {};
    } catch {
      args = {};
    }
    return { text: `Calling ${asked[1]}.`, tool_calls: [{ name: asked[1], arguments: args }] };
  }
  return { text: said ? `You said: ${said}` : 'Hello from the scripted provider.' };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p: any) => p?.type === 'text' && typeof p.text === 'string').map((p: any) => p.text).join('\n');
}

/** The last message's tool result (OpenAI: a `tool` message; Anthropic: a `tool_result` block), if it is one. */
function lastToolResult(message: any): string | undefined {
  if (message?.role === 'tool') return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const block = Array.isArray(message?.content) ? message.content.find((b: any) => b?.type === 'tool_result') : undefined;
  if (!block) return undefined;
  return typeof block.content === 'string' ? block.content : textOf(block.content) || JSON.stringify(block.content);
}

/** A value of the schema's shape: required properties filled, the first enum value, empty arrays. */
function sampleOf(schema: any): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(schema.properties ?? {})) out[name] = sampleOf(sub);
      return out;
    }
    case 'array':
      return [];
    case 'string':
      return 'example';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}
