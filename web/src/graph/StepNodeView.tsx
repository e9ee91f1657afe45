import { memo, type ReactNode } from 'react';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import type { StepNode } from './to-flow';

const STATUS_ICON: Record<string, string> = { pending: '◌', running: '▶', waiting: '⏸', completed: '✔', failed: '✖', skipped: '↷', needs_reconciliation: '?', reconciled: '✔' };

/**
 * A step on the canvas: its name and type, a target handle (unless it is an entry step) and one
 * source handle per declared output. Problems and run status are said in words and symbols,
 * never by colour alone.
 */
function StepNodeViewImpl({ data }: NodeProps<StepNode>): ReactNode {
  const { step, title, branches, entry, problems, status } = data;
  const classes = ['step-node', problems ? 'has-problems' : '', status ? `run-${status}` : ''].filter(Boolean).join(' ');
  return (
    <div className={classes}>
      {!entry && <Handle type="target" position={Position.Left} title={`into ${step.id}`} />}
      <div className="step-node-name">{step.name || step.id}</div>
      <div className="step-node-type">{title} <span className="muted">· {step.id}</span></div>
      {problems ? <div className="step-node-problems">⚠ {problems} problem{problems === 1 ? '' : 's'}</div> : null}
      {status && <div className={`step-node-status status-${status}`}><span aria-hidden="true">{STATUS_ICON[status] ?? '•'}</span> {status}</div>}
      {branches.map((b, i) => (
        <Handle
          key={b.output}
          id={b.output}
          type="source"
          position={Position.Right}
          style={{ top: `${((i + 1) * 100) / (branches.length + 1)}%` }}
          title={b.output}
        >
          {branches.length > 1 && <span className="handle-label">{b.output}</span>}
        </Handle>
      ))}
    </div>
  );
}

export const StepNodeView = memo(StepNodeViewImpl);
export const nodeTypes = { step: StepNodeView };
