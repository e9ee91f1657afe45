import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ApiError } from '../../api/problem';
import { keys } from '../../hooks/queries';
import { useAnnounce } from '../../ui/announcer';
import { ProblemNote } from '../../ui/states';
import { previewCsv, problemsByRow, type CsvPreview } from './csv-import';

const SHOWN_ROWS = 50;

/** CSV import: the file previewed as a table first; the server imports all rows or none, and its 422 is listed by row. */
export function TaskImport({ onDone }: { onDone(): void }): ReactNode {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const upload = useMutation({
    mutationFn: (f: File) => {
      const form = new FormData();
      form.append('file', f, f.name);
      return unwrap(api.POST('/api/v1/tasks/import', { body: form as never, bodySerializer: (b: unknown) => b as FormData }));
    },
    onSuccess: (result) => {
      const imported = result.reduce((n, r) => n + r.imported, 0);
      announce(`Imported ${imported} tasks`);
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
    },
  });
  const choose = async (f: File | undefined) => {
    upload.reset();
    setFile(f ?? null);
    setPreview(f ? previewCsv(await f.text()) : null);
  };
  const rowProblems = problemsByRow(upload.error);
  const badRows = new Set(rowProblems.map((r) => r.row));
  const imported = upload.data?.reduce((n, r) => n + r.imported, 0);
  return (
    <section className="card" aria-label="Import tasks from CSV">
      <h2>Import tasks from CSV</h2>
      <p className="muted">A header row (title is required; also priority, status, deadline, category, workspace_id, assignee, description…), then one task per row. All rows are imported, or none.</p>
      <label>CSV file<input type="file" accept=".csv,text/csv" onChange={(e) => void choose(e.target.files?.[0])} /></label>
      {preview && (
        <>
          <p role="status">{preview.rows.length} rows, columns: {preview.header.join(', ') || 'none'}</p>
          {preview.parseErrors.length > 0 && <ul className="problem-note">{preview.parseErrors.map((m) => <li key={m}>{m}</li>)}</ul>}
          <div className="table-scroll">
            <table aria-label="Rows to import">
              <thead><tr><th scope="col">Row</th>{preview.header.map((h, i) => <th scope="col" key={`${h}-${i}`}>{h}</th>)}</tr></thead>
              <tbody>
                {preview.rows.slice(0, SHOWN_ROWS).map((r) => (
                  <tr key={r.line} className={badRows.has(r.line) ? 'row-failed' : undefined}>
                    <th scope="row">{badRows.has(r.line) ? `⚠ ${r.line}` : r.line}</th>
                    {preview.header.map((_, i) => <td key={i}>{r.cells[i] ?? ''}</td>)}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {preview.rows.length > SHOWN_ROWS && <p className="muted">and {preview.rows.length - SHOWN_ROWS} more rows.</p>}
        </>
      )}
      {rowProblems.length > 0 && (
        <div className="problem-note" role="alert">
          <strong>Nothing was imported: {rowProblems.filter((r) => r.row !== null).length} rows have problems.</strong>
          <ul>
            {rowProblems.map((r) => (
              <li key={r.row ?? 'file'}>
                {r.row !== null ? `Row ${r.row}` : 'The file'}: {r.problems.map((p) => (p.column ? `${p.column}: ${p.message}` : p.message)).join('; ')}
              </li>
            ))}
          </ul>
        </div>
      )}
      {upload.error && !(upload.error instanceof ApiError && upload.error.problem.errors?.length) ? <ProblemNote error={upload.error} /> : null}
      {imported !== undefined && <p role="status">Imported {imported} tasks. <Link to="/tasks">See them in the list</Link></p>}
      <div className="actions">
        <button type="button" disabled={!file || upload.isPending || !preview?.rows.length} onClick={() => file && upload.mutate(file)}>
          {preview ? `Import ${preview.rows.length} rows` : 'Import'}
        </button>
        <button type="button" onClick={onDone}>Close</button>
      </div>
    </section>
  );
}
