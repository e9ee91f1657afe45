/** RFC 9457 problem details as the API sends them (docs/errors.md). */
export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  request_id?: string;
  errors?: ProblemField[];
  [extra: string]: unknown;
}

export interface ProblemField {
  field: string;
  message: string;
  type?: string;
  step_id?: string;
  pointer?: string;
}

/** A failed API call: either the server's problem, or no answer at all (`network`). */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  readonly requestId?: string;
  readonly network: boolean;

  constructor(problem: Problem, opts: { requestId?: string; network?: boolean } = {}) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
    this.status = problem.status;
    this.problem = problem;
    this.requestId = opts.requestId ?? problem.request_id;
    this.network = opts.network ?? false;
  }

  static network(cause: unknown): ApiError {
    return new ApiError({ title: 'The service cannot be reached', status: 0, detail: cause instanceof Error ? cause.message : String(cause) }, { network: true });
  }
}

export function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && typeof (value as Problem).title === 'string' && typeof (value as Problem).status === 'number';
}

/** The problem a response carries, or one made from its status when the body is not problem+json. */
export function problemOf(body: unknown, response: Response): Problem {
  if (isProblem(body)) return body;
  return { title: response.statusText || `HTTP ${response.status}`, status: response.status };
}
