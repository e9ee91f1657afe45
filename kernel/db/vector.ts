/**
 * The two ways an embedding is stored and compared.
 *
 * - pgvector present (embedded PGlite, or a server with the extension):
 *   a `vector(N)` column, cosine via the `<=>` distance operator, which an
 *   ivfflat/hnsw index can serve.
 * - no pgvector (e.g. a stock PostgreSQL 15): a `real[]` column and cosine
 *   computed in SQL over the two arrays; exact, no index, fine for the row
 *   counts of a small workspace.
 *
 * In both, the query vector is bound as a plain JS number array (pg sends it
 * as a PostgreSQL array; pgvector casts `real[]` to `vector`), so callers
 * write one query for both paths:
 *
 *   SELECT id, ${cosineSimilaritySql('embedding', '$1', has)} AS score
 *   FROM docs ORDER BY score DESC NULLS LAST LIMIT 10      -- bind: [queryVector]
 *
 * Differences: pgvector rejects vectors of different lengths with an error
 * and gives NaN for a zero vector; the real[] path gives NULL in both cases.
 */

/** pgvector's limit for a stored vector. */
export const MAX_VECTOR_DIMENSIONS = 16000;

export function vectorColumnType(hasVector: boolean, dimensions: number): string {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_VECTOR_DIMENSIONS) {
    throw new Error(`Vector dimensions must be an integer from 1 to ${MAX_VECTOR_DIMENSIONS}, got ${dimensions}`);
  }
  return hasVector ? `vector(${dimensions})` : 'real[]';
}

/** SQL for a bound number array as a value of the vector column (INSERT/UPDATE). */
export function vectorValueSql(paramPlaceholder: string, hasVector: boolean): string {
  return hasVector ? `(${paramPlaceholder})::real[]::vector` : `(${paramPlaceholder})::real[]`;
}

/**
 * Cosine similarity (1 = same direction) between a vector column and a bound
 * number array. `column` and `paramPlaceholder` are SQL fragments written by
 * the caller, never user input. Each appears once in the result, so `?`
 * replacements work as well as `$n` bind parameters.
 */
export function cosineSimilaritySql(column: string, paramPlaceholder: string, hasVector: boolean): string {
  if (hasVector) return `(1 - (${column} <=> (${paramPlaceholder})::real[]::vector))`;
  // Pair elements by position (FULL JOIN, so a length mismatch shows as
  // unequal counts), then dot product over the product of the norms.
  return `(SELECT CASE
      WHEN count(cos_a.x) <> count(cos_b.y) OR sum(cos_a.x * cos_a.x) = 0 OR sum(cos_b.y * cos_b.y) = 0 THEN NULL
      ELSE sum(cos_a.x * cos_b.y) / sqrt(sum(cos_a.x * cos_a.x) * sum(cos_b.y * cos_b.y))
    END
    FROM unnest((${column})::float8[]) WITH ORDINALITY AS cos_a(x, i)
    FULL JOIN unnest((${paramPlaceholder})::float8[]) WITH ORDINALITY AS cos_b(y, i) ON cos_a.i = cos_b.i)`;
}
