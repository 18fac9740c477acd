// `lc3jit dap` driven by Microsoft's own DAP test client through a session on a real
// program (examples/fib.asm). Run by tests/test_editors.py, which sets:
//   LC3JIT  the lc3jit command      FIB  the program's absolute path
const assert = require('assert');
const fs = require('fs');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const FIB = process.env.FIB;
const lineOf = (text) => fs.readFileSync(FIB, 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;

describe('lc3jit dap', function () {
  this.timeout(30000);
  let dc;

  beforeEach(async () => {
    dc = new DebugClient(process.env.LC3JIT, 'dap', 'lc3');
    await dc.start();
  });

  afterEach(() => dc.stop());

  const top = async () => (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
  const register = async (name) => {
    const frame = await top();
    const scopes = (await dc.scopesRequest({ frameId: frame.id })).body.scopes;
    const registers = scopes.find((s) => s.name === 'Registers');
    const variables = (await dc.variablesRequest({ variablesReference: registers.variablesReference })).body.variables;
    return variables.find((v) => v.name === name).value;
  };
  const step = async (request, line) => {
    await Promise.all([request({ threadId: 1 }), dc.assertStoppedLocation('step', { path: FIB, line })]);
  };

  it('launches, stops at a breakpoint by line, steps, evaluates, writes a register and runs to the end', async () => {
    const entry = lineOf('ST R1, SAVE_R1');
    const output = [];
    dc.on('output', (event) => output.push(event.body.output));
    await dc.hitBreakpoint({ program: FIB }, { path: FIB, line: entry });

    assert.strictEqual(await register('R0'), 'x0000 (0)');
    assert.strictEqual(await register('PC'), 'x3010 <PRINT_DEC>');
    const frames = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.deepStrictEqual(frames.map((f) => f.name), ['PRINT_DEC', 'NEXT+1']);

    await step(dc.stepInRequest.bind(dc), entry + 1);
    await step(dc.nextRequest.bind(dc), entry + 2);
    await step(dc.stepOutRequest.bind(dc), lineOf('LD R0, NEWLINE'));

    const evaluated = await dc.evaluateRequest({ expression: 'R3', context: 'watch' });
    assert.strictEqual(evaluated.body.result, 'x0014 (20)');
    const label = await dc.evaluateRequest({ expression: 'COUNT+1', context: 'hover' });
    assert.strictEqual(label.body.result, 'x300F -> x000A (10)');

    const set = await dc.setVariableRequest({ variablesReference: 1, name: 'R3', value: '1' });
    assert.strictEqual(set.body.value, 'x0001 (1)');
    assert.strictEqual(await register('R3'), 'x0001 (1)');

    await dc.setBreakpointsRequest({ source: { path: FIB }, breakpoints: [] });
    const [, exited] = await Promise.all([
      dc.continueRequest({ threadId: 1 }),
      dc.waitForEvent('exited'),
      dc.waitForEvent('terminated'),
    ]);
    assert.strictEqual(exited.body.exitCode, 0);
    assert.strictEqual(output.join(''), '0\nHALT\n');  // R3 = 1: the first number only
  });

  it('reports the exit code of a program that ends on a fault', async () => {
    await Promise.all([
      dc.configurationSequence(),
      dc.launch({ program: process.env.FAULT }),
      dc.waitForEvent('exited').then((event) => assert.strictEqual(event.body.exitCode, 3)),
    ]);
  });
});
