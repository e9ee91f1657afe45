import { Validator, type Schema } from '@cfworker/json-schema';
import {
  createErrorHandler,
  ErrorSchemaBuilder,
  toErrorList,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorSchema,
  type ErrorTransformer,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from '@rjsf/utils';
import { configProblems, draftOf } from './config-validator';

function segments(pointer: string): string[] {
  return pointer ? pointer.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')) : [];
}

/** An ErrorSchema (rjsf's per-field `__errors` tree) from pointer/message pairs. */
export function errorSchemaOf<T>(problems: { pointer: string; message: string }[]): ErrorSchema<T> {
  const builder = new ErrorSchemaBuilder<T>();
  for (const p of problems) builder.addErrors(p.message, segments(p.pointer).length ? segments(p.pointer) : undefined);
  return builder.ErrorSchema;
}

/**
 * rjsf's ValidatorType over @cfworker/json-schema in the server's dialect (see
 * config-validator.ts): the form accepts exactly what a save accepts, and no code is generated
 * at run time (ajv would need `unsafe-eval` under the app's CSP).
 */
export class ConfigValidator<T = unknown> implements ValidatorType<T, RJSFSchema> {
  validateFormData(formData: T | undefined, schema: RJSFSchema, customValidate?: CustomValidator<T, RJSFSchema>, transformErrors?: ErrorTransformer<T, RJSFSchema>, uiSchema?: UiSchema<T, RJSFSchema>): ValidationData<T> {
    const problems = configProblems(schema, formData ?? {});
    let errors: RJSFValidationError[] = problems.map((p) => {
      const property = segments(p.pointer).map((s) => `.${s}`).join('');
      return { name: 'schema', message: p.message, property, stack: `${property || '.'} ${p.message}`.trim() };
    });
    if (typeof transformErrors === 'function') errors = transformErrors(errors, uiSchema);
    let errorSchema = errorSchemaOf<T>(problems);
    let data: ValidationData<T> = { errors, errorSchema };
    if (typeof customValidate === 'function') {
      const custom = customValidate(formData, createErrorHandler<T>(formData as T), uiSchema, errorSchema);
      const userErrorSchema = unwrapErrorHandler<T>(custom);
      data = validationDataMerge<T>(data, userErrorSchema);
      errorSchema = data.errorSchema;
      data = { errors: toErrorList<T>(errorSchema), errorSchema };
    }
    return data;
  }

  /** used by rjsf to pick a oneOf/anyOf option (config schemas hold no $ref, so the root is needed only for its draft) */
  isValid(schema: RJSFSchema, formData: T | undefined, rootSchema: RJSFSchema): boolean {
    try {
      return new Validator(schema as Schema, draftOf(rootSchema), true).validate(formData).valid;
    } catch {
      return false;
    }
  }

  rawValidation<Result = unknown>(schema: RJSFSchema, formData?: T): { errors?: Result[]; validationError?: Error } {
    try {
      const result = new Validator(schema as Schema, draftOf(schema), false).validate(formData);
      return { errors: result.valid ? undefined : (result.errors as Result[]) };
    } catch (err) {
      return { validationError: err as Error };
    }
  }
}

export const configValidator = new ConfigValidator<Record<string, unknown>>();
