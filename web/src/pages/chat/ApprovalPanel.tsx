import { useState, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap, type ResponseOf } from '../../api/client';
import { ProblemNote } from '../../ui/states';
import type { PendingApproval } from './chat-stream';

export type ApprovalDecision = ResponseOf<'/api/v1/chat/conversations/{conversation_id}/approval', 'post'>;

/** The approval body: a blank comment is left out. */
export function approvalBody(decision: 'approve' | 'reject', comment: string): { decision: 'approve' | 'reject'; comment?: string } {
  const trimmed = comment.trim();
  return trimmed ? { decision, comment: trimmed } : { decision };
}

/**
 * A tool call waiting for a person, or an approval wait of the chat entrypoint's workflow
 * (`source: workflow`, no tool): approve (the server re-checks the current policy, then runs
 * only that call or lets the workflow go on) or reject (the model, or the workflow, is told).
 * The answer says where to follow the run.
 */
export function ApprovalPanel(props: { conversationId: string; approval: PendingApproval; onDecided(decision: ApprovalDecision): void }): ReactNode {
  const [comment, setComment] = useState('');
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'reject') =>
      unwrap(api.POST('/api/v1/chat/conversations/{conversation_id}/approval', { params: { path: { conversation_id: props.conversationId } }, body: approvalBody(decision, comment) })),
    onSuccess: (d) => props.onDecided(d),
  });
  const { tool, reason, source, step_id } = props.approval;
  const workflow = source === 'workflow';
  return (
    <form className="card approval" aria-label={workflow ? 'Workflow approval' : 'Tool approval'} onSubmit={(e) => e.preventDefault()}>
      <h3>Approval needed</h3>
      {workflow ? (
        <p>
          The workflow waits for your approval at step <code>{step_id}</code>.{reason ? ` ${reason}` : ''}
        </p>
      ) : (
        <p>
          The agent wants to use <code>{tool ?? 'a tool'}</code>.{reason ? ` ${reason}` : ''}
        </p>
      )}
      <label>
        Comment (optional)
        <input value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} />
      </label>
      <ProblemNote error={decide.error} />
      <div className="actions">
        <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('approve')}>Approve</button>
        <button type="button" className="danger" disabled={decide.isPending} onClick={() => decide.mutate('reject')}>Reject</button>
      </div>
    </form>
  );
}
