/**
 * Validates an OpenAPI document with @apidevtools/swagger-parser, plus the
 * checks it leaves out for OpenAPI 3.x (see document-checks.ts), and every
 * schema object against the JSON Schema 2020-12 meta-schema.
 *
 * swagger-parser is a dev dependency: it is imported only when this function
 * runs, so production code may import this module without it.
 */
import { createRequire } from 'node:module';
import { patternProblems, schemasOf, semanticProblems } from './document-checks.ts';

interface MetaSchemaValidator {
	validateSchema(schema: unknown): boolean;
	errorsText(errors?: unknown, options?: { dataVar?: string }): string;
	errors?: unknown;
}
type MetaSchemaValidatorClass = new (options: Record<string, unknown>) => MetaSchemaValidator;

/** The JSON Schema 2020-12 validator swagger-parser itself uses (Ajv), loaded through swagger-parser. */
function metaSchemaValidator(): MetaSchemaValidator {
	const requireFromParser = createRequire(import.meta.resolve('@apidevtools/swagger-parser'));
	const loaded = requireFromParser('ajv/dist/2020') as MetaSchemaValidatorClass | { default: MetaSchemaValidatorClass };
	const Ajv2020 = 'default' in loaded ? loaded.default : loaded;
	return new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
}

function metaSchemaProblems(doc: unknown): string[] {
	const ajv = metaSchemaValidator();
	return schemasOf(doc).flatMap(({ at, schema }) => {
		const problems = patternProblems(schema, at);
		if (!ajv.validateSchema(schema)) problems.push(`${at}: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`);
		return problems;
	});
}

async function swaggerParserProblems(doc: unknown): Promise<string[]> {
	const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
	try {
		// swagger-parser dereferences in place: give it a copy.
		await SwaggerParser.validate(structuredClone(doc) as Parameters<typeof SwaggerParser.validate>[0]);
		return [];
	} catch (error) {
		return [(error as Error).message];
	}
}

/** Resolves when `doc` is a valid OpenAPI document; otherwise throws with every problem found. */
export async function validateOpenApi(doc: unknown): Promise<void> {
	const problems = [...(await swaggerParserProblems(doc)), ...semanticProblems(doc), ...metaSchemaProblems(doc)];
	if (problems.length > 0) throw new Error(`Invalid OpenAPI document:\n${problems.join('\n')}`);
}
