import type { KeyboardCoordinateGetter } from '@dnd-kit/core';

/**
 * Keyboard dragging on the board: ArrowRight / ArrowLeft jump to the centre of the next
 * column (space picks up and drops, escape cancels: dnd-kit's keyboard sensor).
 */
export const columnKeyboardCoordinates: KeyboardCoordinateGetter = (event, { context, currentCoordinates }) => {
  const dir = event.code === 'ArrowRight' ? 1 : event.code === 'ArrowLeft' ? -1 : 0;
  const rect = context.collisionRect;
  if (!dir || !rect) return undefined;
  event.preventDefault();
  const centre = rect.left + rect.width / 2;
  const columns = [...context.droppableRects.values()].sort((a, b) => a.left - b.left);
  const next = dir > 0 ? columns.find((c) => c.left + c.width / 2 > centre + 1) : columns.reverse().find((c) => c.left + c.width / 2 < centre - 1);
  if (!next) return currentCoordinates;
  return { x: currentCoordinates.x + (next.left + next.width / 2 - centre), y: currentCoordinates.y + (next.top + 60 - rect.top) };
};
