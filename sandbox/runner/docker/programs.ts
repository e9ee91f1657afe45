import type { SandboxLanguage } from '../../../kernel/sandbox-contract.ts';
import { MAX_LOG_LINE_CHARS, MAX_LOG_LINES } from '../limits.ts';

/**
 * What runs inside a container, per language. Both answer one JSON envelope on stdout (the
 * shape of the isolate driver's, see ../isolate/wrapper.ts); everything the snippet prints goes
 * to the logs.
 *
 * python: the code runs with `input` bound and gives its result by assigning `result`; our
 * wrapper (a -c argument) reads `{code, input}` from stdin.
 * shell: the code is `sh -c`'s script; it reads the input JSON on stdin, its stdout is the
 * result (`{exit_code, stdout}`), stderr the logs; a non-zero exit fails the run.
 */
export interface Program {
  cmd: string[];
  /** what is written to the container's stdin */
  stdin: string;
  /** stdout is our JSON envelope (python) or the snippet's own output (shell) */
  envelope: boolean;
}

const PYTHON_WRAPPER = `
import sys, json, io, traceback
_req = json.loads(sys.stdin.read())
_out = sys.stdout
sys.stdout = _buf = io.StringIO()
sys.stderr = _buf
def _logs():
    return [l[:${MAX_LOG_LINE_CHARS}] for l in _buf.getvalue().splitlines()[:${MAX_LOG_LINES}]]
def _answer(d):
    _out.write(json.dumps(d))
    _out.flush()
    sys.exit(0)
_g = {'__name__': '__main__', 'input': _req['input']}
try:
    _code = compile(_req['code'], 'code.py', 'exec')
except SyntaxError as e:
    _answer({'ok': False, 'kind': 'syntax', 'message': 'SyntaxError: ' + str(e.msg), 'line': e.lineno, 'column': e.offset, 'logs': []})
try:
    exec(_code, _g)
except MemoryError:
    _answer({'ok': False, 'kind': 'memory', 'logs': _logs()})
except BaseException as e:
    _line = None
    for _f in traceback.extract_tb(e.__traceback__):
        if _f.filename == 'code.py':
            _line = _f.lineno
    _answer({'ok': False, 'kind': 'runtime', 'message': (type(e).__name__ + ': ' + str(e))[:2000], 'line': _line, 'logs': _logs()})
try:
    _s = json.dumps(_g.get('result'), allow_nan=False)
except Exception as e:
    _answer({'ok': False, 'kind': 'not_json', 'message': str(e)[:500], 'logs': _logs()})
_out.write('{"ok":true,"logs":' + json.dumps(_logs()) + ',"result":' + _s + '}')
`;

export function programFor(language: SandboxLanguage, code: string, inputJson: string): Program {
  if (language === 'python') return { cmd: ['python3', '-I', '-S', '-c', PYTHON_WRAPPER], stdin: `{"code":${JSON.stringify(code)},"input":${inputJson}}`, envelope: true };
  if (language === 'shell') return { cmd: ['/bin/sh', '-c', code], stdin: inputJson, envelope: false };
  throw new Error(`no container program for ${language}`);
}

/** Linux refuses a single argument longer than this (MAX_ARG_STRLEN): a shell script travels as one. */
export const MAX_ARGUMENT_BYTES = 131_072 - 1;
