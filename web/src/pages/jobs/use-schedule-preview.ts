import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { isPreviewable, type SchedulePayload } from './job-form';

const PREVIEW_COUNT = 5;
const SETTLE_MS = 350;

/** `value`, once it has stayed the same for `ms` (one request per pause in typing, not per key). */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  const text = JSON.stringify(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(JSON.parse(text) as T), ms);
    return () => clearTimeout(timer);
  }, [text, ms]);
  return settled;
}

/** The next fire times of a schedule being typed, from `POST /api/v1/jobs/preview` (the server's own check: a 422 names the field). */
export function useSchedulePreview(schedule: SchedulePayload) {
  const settled = useSettled(schedule, SETTLE_MS);
  return useQuery({
    queryKey: ['jobs', 'preview', settled],
    queryFn: () => unwrap(api.POST('/api/v1/jobs/preview', { body: { schedule: settled, count: PREVIEW_COUNT } })),
    enabled: isPreviewable(settled),
    staleTime: 30_000,
    retry: false,
  });
}
