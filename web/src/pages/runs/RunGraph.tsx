import { useMemo, useRef, type ReactNode } from 'react';
import { Background, Controls, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { useMeasuredNodes } from '../../graph/measured';
import '@xyflow/react/dist/style.css';
import { useNodeTypes } from '../../hooks/queries';
import { nodeTypes } from '../../graph/StepNodeView';
import { newFlowCache, toFlow } from '../../graph/to-flow';
import type { NodeTypeInfo, Step } from '../../graph/types';

const NO_TYPES: NodeTypeInfo[] = [];

// a small graph is shown at its natural size, not blown up to fill the canvas
const FIT = { maxZoom: 1 };

/** The run's snapshot drawn as its graph, each step showing its live status; clicking a step selects its receipt. */
export function RunGraph({ steps, statusOf, onSelect }: { steps: Step[]; statusOf: (id: string) => string; onSelect: (id: string) => void }): ReactNode {
  const nodeTypesQuery = useNodeTypes();
  const typeList = nodeTypesQuery.data?.items ?? NO_TYPES;
  const types = useMemo(() => new Map(typeList.map((t) => [t.type, t])), [typeList]);
  const cache = useRef(newFlowCache());
  const { nodes: built, edges } = useMemo(() => toFlow(steps, types, { statusOf }, cache.current), [steps, types, statusOf]);
  const { nodes, keepSizes } = useMeasuredNodes(built);
  return (
    <div className="canvas run-canvas" data-testid="run-graph">
      <ReactFlowProvider>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          onNodesChange={keepSizes}
          nodeTypes={nodeTypes}
          nodesDraggable={false}
          nodesConnectable={false}
          edgesFocusable={false}
          onNodeClick={(_, node) => onSelect(node.id)}
          fitView
        fitViewOptions={FIT}
          minZoom={0.1}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </ReactFlowProvider>
    </div>
  );
}
