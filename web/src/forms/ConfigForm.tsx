import { useMemo, type ReactNode } from 'react';
// the package index also exports a test registry that imports ajv: the component alone keeps it (and ajv) out
import Form from '@rjsf/core/lib/components/Form.js';
import type { ErrorSchema, RJSFSchema } from '@rjsf/utils';
import { DEFAULT_FORM_STATE_BEHAVIOR } from './form-defaults';
import { JsonField } from './JsonField';
import { SelectWidget } from './SelectWidget';
import { configValidator, errorSchemaOf } from './rjsf-validator';
import { formSchemaOf, uiSchemaFor } from './ui-schema';

const FIELDS = { json: JsonField };
const WIDGETS = { SelectWidget };

export interface ConfigFormProps {
  /** unique per step: the form's field ids */
  idPrefix: string;
  schema: Record<string, unknown>;
  config: Record<string, unknown>;
  onChange: (config: Record<string, unknown>) => void;
  /** problems the server reported on this step's config (pointers into the config) */
  serverProblems?: { pointer: string; message: string }[];
  readOnly?: boolean;
}

/** A step's config form, generated from its type's JSON Schema and checked as you type, in the server's dialect. */
export default function ConfigForm({ idPrefix, schema, config, onChange, serverProblems = [], readOnly }: ConfigFormProps): ReactNode {
  const formSchema = useMemo(() => formSchemaOf(schema) as RJSFSchema, [schema]);
  const uiSchema = useMemo(() => uiSchemaFor(formSchema), [formSchema]);
  const extraErrors = useMemo<ErrorSchema | undefined>(() => (serverProblems.length ? errorSchemaOf(serverProblems) : undefined), [serverProblems]);
  // the schema's top-level defaults filled in before rjsf sees the config: rjsf reporting them as
  // a change of a config that lacks them (a step made through the API) looped the editor's updates
  const formData = useMemo(() => ({ ...topLevelDefaults(formSchema), ...config }), [formSchema, config]);
  return (
    <Form
      className="config-form"
      idPrefix={idPrefix}
      schema={formSchema}
      uiSchema={uiSchema}
      formData={formData}
      validator={configValidator}
      fields={FIELDS}
      widgets={WIDGETS}
      experimental_defaultFormStateBehavior={DEFAULT_FORM_STATE_BEHAVIOR}
      liveValidate="onChange"
      showErrorList={false}
      noHtml5Validate
      extraErrors={extraErrors}
      readonly={readOnly}
      onChange={(e) => onChange((e.formData ?? {}) as Record<string, unknown>)}
    />
  );
}

/** The defaults a schema declares for its own properties (not nested ones). */
function topLevelDefaults(schema: RJSFSchema): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { default?: unknown } | boolean>;
  return Object.fromEntries(Object.entries(props).flatMap(([key, p]) => (typeof p === 'object' && p.default !== undefined ? [[key, p.default]] : [])));
}
