import { useCallback, useEffect, useMemo, useReducer, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ReactFlowProvider } from '@xyflow/react';
import { api, unwrap, type ResponseOf } from '../../api/client';
import { ApiError } from '../../api/problem';
import { keys, useNodeTypes } from '../../hooks/queries';
import { useCurrentWorkspace } from '../../layout/current-workspace';
import { useAnnounce } from '../../ui/announcer';
import { ProblemNote, QueryView } from '../../ui/states';
import { apiSteps, type NodeTypeInfo, type Step } from '../../graph/types';
import { editorReducer } from './editor-model';
import { EditorCanvas } from './EditorCanvas';
import { Palette } from './Palette';
import { countOf, localProblems, mapServerProblems, type MappedProblems } from './problems';
import { ProblemList } from './ProblemList';
import { StepPanel } from './StepPanel';
import { StepOutline } from './StepOutline';

type Workflow = ResponseOf<'/api/v1/workflows/{id}', 'get'>;

export default function EditorPage(): ReactNode {
  const { workflowId = '' } = useParams();
  const wf = useQuery({ queryKey: keys.workflow(workflowId), queryFn: () => unwrap(api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflowId } } })), staleTime: Infinity });
  const nodeTypesQuery = useNodeTypes();
  return (
    <QueryView query={wf} what="workflow">
      {(w) => (
        <QueryView query={nodeTypesQuery} what="node types">
          {(nt) => (
            <ReactFlowProvider>
              <Editor workflow={w} types={nt.items} />
            </ReactFlowProvider>
          )}
        </QueryView>
      )}
    </QueryView>
  );
}

const NO_PROBLEMS: MappedProblems = { byStep: new Map(), general: [] };

/** The workflow editor: palette, canvas, the selected step's panel; Save PUTs the definition. */
function Editor({ workflow, types: typeList }: { workflow: Workflow; types: NodeTypeInfo[] }): ReactNode {
  const types = useMemo(() => new Map(typeList.map((t) => [t.type, t])), [typeList]);
  const reducer = useMemo(() => editorReducer(types), [types]);
  const [state, dispatch] = useReducer(reducer, undefined, () => reducer({ steps: [], dirty: false }, { kind: 'load', steps: workflow.steps as Step[] }));
  const [name, setName] = useState(workflow.name);
  const [server, setServer] = useState<MappedProblems>(NO_PROBLEMS);
  const [blocked, setBlocked] = useState(false);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const { workspaceId } = useCurrentWorkspace();
  const local = useMemo(() => localProblems(state.steps, types), [state.steps, types]);
  const problemsOf = useCallback((id: string) => countOf(local.byStep.get(id)) + countOf(server.byStep.get(id)), [local, server]);
  const dirty = state.dirty || name !== workflow.name;
  useUnsavedGuard(dirty);

  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } }, body: { name, description: workflow.description, trigger_type: workflow.trigger_type, variables: workflow.variables, steps: apiSteps(state.steps) } })),
    onSuccess: (saved) => {
      setServer(NO_PROBLEMS);
      dispatch({ kind: 'saved' });
      queryClient.setQueryData(keys.workflow(workflow.id), (old: Workflow | undefined) => ({ ...(old ?? {}), ...saved }) as Workflow);
      void queryClient.invalidateQueries({ queryKey: keys.workflows });
      announce(`Saved: version ${saved.version}.`);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.status === 422) {
        const mapped = mapServerProblems(err.problem.errors);
        setServer(mapped);
        announce(`Not saved: ${err.problem.errors?.length ?? 0} problem(s).`);
      }
    },
  });
  const run = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/workflows/{id}/run', { params: { path: { id: workflow.id } }, body: { input: {}, ...(workspaceId ? { workspace_id: workspaceId } : {}) } })),
    onSuccess: (r) => navigate(`/runs/${r.run_id}`),
  });
  const trySave = () => {
    const count = [...local.byStep.values()].reduce((n, p) => n + countOf(p), 0);
    setBlocked(count > 0);
    if (count > 0) {
      announce(`Not saved: ${count} problem(s) to fix first.`);
      return;
    }
    save.mutate();
  };
  // an edit of a step drops what the server said about it: it may be fixed now
  const guardedDispatch = useCallback((a: Parameters<typeof dispatch>[0]) => {
    if ('id' in a && a.id && a.kind !== 'select' && a.kind !== 'move') setServer((s) => (s.byStep.has(a.id!) ? { ...s, byStep: new Map([...s.byStep].filter(([k]) => k !== a.id)) } : s));
    dispatch(a);
  }, []);
  useEffect(() => setBlocked(false), [state.steps]);
  const addStep = useCallback((type: NodeTypeInfo) => guardedDispatch({ kind: 'add', type }), [guardedDispatch]);
  const selectStep = useCallback((id: string) => dispatch({ kind: 'select', id }), []);

  const selected = state.steps.find((s) => s.id === state.selected);
  const unsavedNote = dirty ? 'Unsaved changes' : `Saved · version ${workflow.version}`;
  return (
    <section className="editor">
      <div className="page-head">
        <label className="editor-name">
          <span className="sr-only">Workflow name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={200} aria-label="Workflow name" />
        </label>
        <div className="actions">
          <span className="muted" role="status">{unsavedNote}</span>
          <button type="button" onClick={trySave} disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
          <button type="button" onClick={() => run.mutate()} disabled={run.isPending || dirty} title={dirty ? 'Save first: a run uses the saved version' : undefined}>Run now</button>
          <Link to={`/runs?workflow_id=${workflow.id}`}>Runs</Link>
        </div>
      </div>
      <ProblemNote error={run.error} />
      {save.error && !(save.error instanceof ApiError && save.error.status === 422) ? <ProblemNote error={save.error} /> : null}
      <ProblemList steps={state.steps} local={blocked ? local : NO_PROBLEMS} server={server} onSelect={selectStep} />
      <div className="editor-body">
        <Palette types={typeList} onAdd={addStep} />
        <div className="editor-center">
          <EditorCanvas steps={state.steps} selected={state.selected} types={types} problemsOf={problemsOf} dispatch={guardedDispatch} />
          <StepOutline steps={state.steps} selected={state.selected} problemsOf={problemsOf} onSelect={selectStep} />
        </div>
        {selected ? (
          <StepPanel step={selected} steps={state.steps} type={types.get(selected.type)} local={local.byStep.get(selected.id)} server={server.byStep.get(selected.id)} dispatch={guardedDispatch} />
        ) : (
          <aside className="step-panel muted">Select a step on the canvas or in the list to edit it; add one from the palette.</aside>
        )}
      </div>
    </section>
  );
}

/** Leaving the page (reload, closing the tab) with unsaved work asks first. */
function useUnsavedGuard(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
}
