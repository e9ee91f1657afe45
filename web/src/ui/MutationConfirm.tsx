import type { ReactNode } from 'react';
import type { UseMutationResult } from '@tanstack/react-query';
import { ConfirmDialog, type ConfirmDialogProps } from './ConfirmDialog';
import { ProblemNote } from './states';

export type MutationConfirmProps = Omit<ConfirmDialogProps, 'busy' | 'error' | 'onConfirm' | 'onCancel'> & {
  /** what confirming runs (no variables) */
  mutation: UseMutationResult<unknown, unknown, void>;
  open: boolean;
  onClose(): void;
};

/**
 * A destructive mutation asked about first: while `open`, the dialog (busy while it runs, its
 * error in the dialog, closed once it succeeds); closed, the last attempt's error where the
 * dialog was.
 */
export function MutationConfirm({ mutation, open, onClose, ...dialog }: MutationConfirmProps): ReactNode {
  if (!open) return <ProblemNote error={mutation.error} />;
  return <ConfirmDialog {...dialog} busy={mutation.isPending} error={mutation.error} onConfirm={() => mutation.mutate(undefined, { onSuccess: onClose })} onCancel={onClose} />;
}
