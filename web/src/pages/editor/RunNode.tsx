import { useState, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ProblemNote } from '../../ui/states';
import { apiConfig, type Step } from '../../graph/types';

/** "Run this node": the step alone through POST /workflows/run-node, with an input as `{{trigger}}`; nothing is stored. */
export function RunNode({ step, blocked }: { step: Step; blocked: boolean }): ReactNode {
  const [input, setInput] = useState('{}');
  const [inputError, setInputError] = useState<string>();
  const run = useMutation({
    mutationFn: (parsed: unknown) => unwrap(api.POST('/api/v1/workflows/run-node', { body: { type: step.type, config: apiConfig(step.config), input: parsed } })),
  });
  const start = () => {
    let parsed: unknown;
    try {
      parsed = input.trim() ? JSON.parse(input) : null;
    } catch {
      setInputError('The input is not JSON.');
      return;
    }
    setInputError(undefined);
    run.mutate(parsed);
  };
  return (
    <details className="run-node">
      <summary>Run this node</summary>
      <label>
        Input (JSON, as <code>{'{{trigger}}'}</code>)
        <textarea rows={3} value={input} onChange={(e) => setInput(e.target.value)} aria-invalid={Boolean(inputError)} />
      </label>
      {inputError && <p className="field-error" role="alert">{inputError}</p>}
      <button type="button" onClick={start} disabled={run.isPending || blocked}>{run.isPending ? 'Running…' : 'Run node'}</button>
      {blocked && <p className="muted">Fix this step's config first.</p>}
      <ProblemNote error={run.error} />
      {run.data && (
        <div role="status">
          <p className="muted">Finished in {run.data.execute_ms} ms</p>
          <pre className="output">{JSON.stringify(run.data.output, null, 2)}</pre>
        </div>
      )}
    </details>
  );
}
