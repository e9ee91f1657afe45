import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { ApiError } from '../src/api/problem';
import { ErrorState } from '../src/ui/states';
import { Markdown } from '../src/ui/Markdown';

describe('error state', () => {
  it("tells the problem's title, detail, code and request id", () => {
    const err = new ApiError({ title: 'Illegal task status move', status: 409, detail: 'from completed it may move to: pending', code: 'TASKS_ERR_ILLEGAL_TRANSITION' }, { requestId: 'req-42' });
    render(<ErrorState error={err} onRetry={() => undefined} />);
    expect(screen.getByRole('alert')).toHaveTextContent('Illegal task status move');
    expect(screen.getByText('from completed it may move to: pending')).toBeInTheDocument();
    expect(screen.getByText('TASKS_ERR_ILLEGAL_TRANSITION')).toBeInTheDocument();
    expect(screen.getByText('req-42')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('tells a network failure apart from a problem', () => {
    render(<ErrorState error={new TypeError('Failed to fetch')} />);
    expect(screen.getByRole('alert')).toHaveTextContent('The service cannot be reached');
  });
});

describe('Markdown', () => {
  it('keeps <script>, onerror= and javascript: inert', () => {
    const { container } = render(<Markdown>{'Hi <script>window.x=1</script> <img src=x onerror="alert(1)"> [click](javascript:alert(1)) ![i](javascript:alert(2))'}</Markdown>);
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('[onerror]')).toBeNull();
    for (const a of container.querySelectorAll('a')) expect(a.getAttribute('href') ?? '').not.toMatch(/^javascript:/i);
    for (const img of container.querySelectorAll('img')) expect(img.getAttribute('src') ?? '').not.toMatch(/^javascript:/i);
  });
});
