/**
 * Test helper: the JSON Schema 2020-12 validator (Ajv) that
 * @apidevtools/swagger-parser ships with, reached through swagger-parser so
 * no undeclared package is imported directly.
 */
import { createRequire } from 'node:module';
import type { JSONSchema } from '../kernel/openapi/types.ts';

interface Ajv {
	compile(schema: JSONSchema): ((data: unknown) => boolean) & { errors?: unknown };
}
type AjvClass = new (options: Record<string, unknown>) => Ajv;

function ajvClass(): AjvClass {
	const requireFromParser = createRequire(import.meta.resolve('@apidevtools/swagger-parser'));
	const loaded = requireFromParser('ajv/dist/2020') as AjvClass | { default: AjvClass };
	return 'default' in loaded ? loaded.default : loaded;
}

let lenient: Ajv | undefined;

/** Compiles a schema for validating data (formats are not checked: no format plugin is installed). */
export function compileWithAjv(schema: JSONSchema): (data: unknown) => boolean {
	const Ajv2020 = ajvClass();
	lenient ??= new Ajv2020({ strict: false, validateFormats: false });
	return lenient.compile(schema);
}

/** Unknown or misplaced keywords (a typo such as `minLenght`) that Ajv's strict schema mode reports. */
export function strictKeywordProblems(schema: JSONSchema): string[] {
	const Ajv2020 = ajvClass();
	const ajv = new Ajv2020({
		strictSchema: true,
		strictTypes: false,
		strictTuples: false,
		strictRequired: false,
		validateFormats: false,
	});
	try {
		ajv.compile(schema);
		return [];
	} catch (error) {
		return [(error as Error).message];
	}
}
