import { useCallback, useMemo, useRef, type DragEvent, type ReactNode } from 'react';
import { Background, Controls, ReactFlow, useReactFlow, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { newFlowCache, toFlow, type StepNode } from '../../graph/to-flow';
import { nodeTypes } from '../../graph/StepNodeView';
import { useMeasuredNodes } from '../../graph/measured';
import type { NodeTypeInfo, Step } from '../../graph/types';
import type { EditorAction } from './editor-model';
import { DRAG_TYPE } from './Palette';

interface Props {
  steps: Step[];
  selected?: string;
  types: Map<string, NodeTypeInfo>;
  problemsOf: (stepId: string) => number;
  dispatch: (a: EditorAction) => void;
}

// a small graph is shown at its natural size, not blown up to fill the canvas
const FIT = { maxZoom: 1 };

/** The canvas: the definition drawn by xyflow, every change going back to the definition through the reducer. */
export function EditorCanvas({ steps, selected, types, problemsOf, dispatch }: Props): ReactNode {
  const flow = useReactFlow();
  const cache = useRef(newFlowCache());
  const { nodes: built, edges } = useMemo(() => toFlow(steps, types, { selected, problemsOf }, cache.current), [steps, types, selected, problemsOf]);
  const { nodes, keepSizes } = useMeasuredNodes(built);
  const onNodesChange = useCallback(
    (changes: NodeChange<StepNode>[]) => {
      keepSizes(changes);
      for (const c of changes) {
        if (c.type === 'position' && c.position) dispatch({ kind: 'move', id: c.id, position: c.position });
        else if (c.type === 'select' && c.selected) dispatch({ kind: 'select', id: c.id });
        else if (c.type === 'remove') dispatch({ kind: 'remove', id: c.id });
      }
    },
    [dispatch, keepSizes],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      for (const c of changes) {
        if (c.type !== 'remove') continue;
        const edge = edges.find((e) => e.id === c.id);
        if (edge) dispatch({ kind: 'disconnect', source: edge.source, target: edge.target });
      }
    },
    [dispatch, edges],
  );
  const onConnect = useCallback((c: Connection) => dispatch({ kind: 'connect', source: c.source, output: c.sourceHandle, target: c.target }), [dispatch]);
  const onDrop = (e: DragEvent) => {
    const type = types.get(e.dataTransfer.getData(DRAG_TYPE));
    if (!type) return;
    e.preventDefault();
    dispatch({ kind: 'add', type, position: flow.screenToFlowPosition({ x: e.clientX, y: e.clientY }) });
  };
  return (
    <div className="canvas" onDragOver={(e) => e.preventDefault()} onDrop={onDrop} data-testid="editor-canvas">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onPaneClick={() => dispatch({ kind: 'select' })}
        deleteKeyCode={['Delete']}
        fitView
        fitViewOptions={FIT}
        minZoom={0.1}
        nodesFocusable
        edgesFocusable
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls />
      </ReactFlow>
    </div>
  );
}
