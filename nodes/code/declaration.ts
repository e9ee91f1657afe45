import { TIMEOUT_SCHEMA } from '../../kernel/nodes/model-step.ts';
import type { NodeTypeDeclaration } from '../../kernel/nodes/contract.ts';
import { CONTAINER_LANGUAGES, SANDBOX_DIALECTS, SANDBOX_LANGUAGES, SANDBOX_MAX_CODE_CHARS, type SandboxLanguage } from '../../kernel/sandbox-contract.ts';

/**
 * The `code` node's declaration for the languages a deployment can run: every language in the
 * declaration a package ships (and the docs), only `javascript` where no Docker engine is
 * configured, so that a step in another language is refused at save (422, `config.language`).
 */
export function codeNodeType(languages: readonly SandboxLanguage[] = SANDBOX_LANGUAGES): NodeTypeDeclaration {
  return {
    type: 'code',
    version: 1,
    category: 'action',
    title: 'Code',
    description:
      'Runs a snippet in the sandbox service (never in the workflow process): JavaScript as the body of an async function with `input` bound, its `return` value the output; python (assign `result`) and shell (stdin is the input JSON, output `{exit_code, stdout}`) only where a Docker engine is configured. No network, files, require or process; time, memory and size limits of the sandbox.',
    config_schema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          minLength: 1,
          maxLength: SANDBOX_MAX_CODE_CHARS,
          description: 'The snippet. JavaScript: the body of an async function; `input` is bound, `return` gives the output, `console.log` lines are dropped.',
          examples: ['return input.items.filter((i) => i.price > 10).map((i) => ({ ...i, vat: i.price * 0.2 }));'],
        },
        language: {
          type: 'string',
          enum: [...languages],
          default: 'javascript',
          description: `The snippet's language. ${CONTAINER_LANGUAGES.join(' and ')} run in a container and are accepted only where a Docker engine is configured (SANDBOX_DOCKER_HOST).`,
          examples: ['javascript'],
        },
        dialect: {
          type: 'string',
          enum: [...SANDBOX_DIALECTS],
          default: 'plain',
          description: "What a JavaScript snippet sees besides `input`: `plain` nothing more; `n8n` an n8n Code node's `$json`, `$input`, `$()`, `items`, Luxon's `DateTime` with `$now` and `$today` (in the input's `zone`), `$itemIndex`, `$runIndex`, `$workflow` and `$execution` (the run's ids) and n8n's data transformation functions (for imported expressions), from an input `{mode: 'all' | 'each', items, item?, index?, origin?, nodes, zone?, run_index?, workflow?}`, and its answer read as n8n items (a list of `{json}` or objects; the output is the list of their json, one object in mode each).",
          examples: ['plain'],
        },
        input: {
          default: null,
          description: "What the snippet sees as `input` (templates allowed, e.g. '{{fetch.output.body}}'); null: the step's input (its parent's output, or the trigger payload).",
          examples: ['{{fetch.output.body}}'],
        },
        timeout: { ...TIMEOUT_SCHEMA, description: 'Seconds the step may take; it lowers the sandbox\'s own limit (SANDBOX_TIMEOUT_SECONDS), never raises it (null: that limit alone).' },
      },
      required: ['code'],
      additionalProperties: false,
    },
    outputs: ['main'],
    // the snippet has no way to reach anything outside the sandbox: repeating it is harmless
    uncertain_effect: false,
    side_effect: 'none',
  };
}

/** The languages a node's settings allow: containers only with a Docker engine. */
export function configuredLanguages(dockerHost: string): SandboxLanguage[] {
  return SANDBOX_LANGUAGES.filter((l) => dockerHost !== '' || !CONTAINER_LANGUAGES.includes(l));
}
