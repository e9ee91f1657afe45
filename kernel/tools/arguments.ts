import { validateJsonSchema, type Schema } from '../json-schema/validate.ts';
import type { ToolDeclaration } from '../tools-contract.ts';
import { TOOLS_ERR, type ArgumentProblem } from './errors.ts';

const MAX_REPORTED = 20;

function problemType(message: string): string {
  if (message === 'is required') return 'required';
  if (message === 'is not a known setting') return 'unknownField';
  if (message.startsWith('must be one of')) return 'enum';
  if (message.startsWith('must be ') && message.includes(', got ')) return 'type';
  return 'schema';
}

/**
 * Every problem of `args` against the tool's `parameters` (at most 20 reported). Whole
 * templates (`{{x}}`) are ordinary strings here: nothing resolves them in a tool call.
 */
export function argumentProblems(declaration: Pick<ToolDeclaration, 'parameters'>, args: unknown): ArgumentProblem[] {
  const problems = validateJsonSchema(declaration.parameters as Schema, args, '', { templates: false });
  return problems.slice(0, MAX_REPORTED).map((p) => {
    const field = p.path || '(arguments)';
    const message = p.message === 'is not a known setting' ? 'is not a parameter of this tool' : p.message;
    return { field, message: `${field} ${message}`, type: problemType(p.message) };
  });
}

/** 422 TOOLS_ERR_INVALID_ARGUMENTS listing each problem, for the model to correct its call. */
export function assertArguments(declaration: Pick<ToolDeclaration, 'name' | 'parameters'>, args: unknown): void {
  const errors = argumentProblems(declaration, args);
  if (errors.length) {
    throw TOOLS_ERR.INVALID_ARGUMENTS(`The arguments of '${declaration.name}' are not valid: ${errors.map((e) => e.message).join('; ')}.`, { tool: declaration.name, errors });
  }
}
