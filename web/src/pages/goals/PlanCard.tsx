import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useAnnounce } from '../../ui/announcer';
import { ProblemNote } from '../../ui/states';
import { goalKeys, type Plan } from './goal-queries';

const STEP_TEXT = { pending: 'to do', in_progress: 'in progress', done: 'done', skipped: 'skipped' } as const;

/** A plan: its summary, its steps with their status, and (while pending) approve or reject with a comment. */
export function PlanCard({ plan: p }: { plan: Plan }): ReactNode {
  const [comment, setComment] = useState('');
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') => {
      const body = comment.trim() ? { comment: comment.trim() } : {};
      const path = { params: { path: { plan_id: p.id } }, body };
      return unwrap(decision === 'approve' ? api.POST('/api/v1/plans/{plan_id}/approve', path) : api.POST('/api/v1/plans/{plan_id}/reject', path));
    },
    onSuccess: (plan) => {
      announce(`Plan ${plan.status}`);
      void queryClient.invalidateQueries({ queryKey: goalKeys.plans });
    },
  });
  return (
    <li className="card plan">
      <h3>
        {p.summary || 'Plan'} <span className={`badge status-${p.status}`}>{p.status}</span>
      </h3>
      <p className="muted">
        {p.task_id && <Link to={`/tasks/${p.task_id}`}>its task</Link>} {p.goal_id && <Link to={`/goals/${p.goal_id}`}>its goal</Link>} {p.run_id && <Link to={`/runs/${p.run_id}`}>its run</Link>}{' '}
        {p.requires_approval ? 'needs approval' : 'approved on proposal'}
        {p.decision_comment && <> · comment: “{p.decision_comment}”</>}
      </p>
      <ol className="steps" aria-label="Steps">
        {p.steps.map((s, i) => (
          <li key={i} className={`step step-${s.status}`}>
            <span className={`badge status-${s.status}`}>{STEP_TEXT[s.status]}</span> {s.title}
            {s.detail && <div className="muted">{s.detail}</div>}
          </li>
        ))}
      </ol>
      {p.status === 'pending' && (
        <form className="inline-form" aria-label={`Decide plan ${p.summary}`} onSubmit={(e) => e.preventDefault()}>
          <label>
            Comment
            <input value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} />
          </label>
          <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('approve')}>Approve plan</button>
          <button type="button" className="danger" disabled={decide.isPending} onClick={() => decide.mutate('reject')}>Reject plan</button>
        </form>
      )}
      <ProblemNote error={decide.error} />
    </li>
  );
}
