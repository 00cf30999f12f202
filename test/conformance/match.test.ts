/** The comparison the conformance suites rest on: it must catch what it claims to. */
import { Bindings, differences } from './match';

it('binds a numbered placeholder once: the same placeholder must stand for the same text', () => {
  const bindings = new Bindings();
  expect(differences({ a: '<token:1>', b: '<token:1>' }, { a: 'x', b: 'x' }, bindings)).toEqual([]);
  expect(differences({ a: '<token:1>', b: '<token:1>' }, { a: 'x', b: 'y' })).toHaveLength(1);
});

it('two numbers of one kind must stand for different texts', () => {
  expect(differences({ a: '<token:1>', b: '<token:2>' }, { a: 'x', b: 'x' })).toHaveLength(1);
  expect(differences({ a: '<token:1>', b: '<token:2>' }, { a: 'x', b: 'y' })).toEqual([]);
});

it('matches placeholders inside text, an ARN\'s parts without their colons', () => {
  const recorded = 'arn:<partition>:sns:<region>:111111111111:<resource:1>:<resource:2>';
  expect(differences(recorded, 'arn:aws:sns:us-east-1:000000000000:topic:1234')).toEqual([]);
  expect(differences(recorded, 'arn:aws:sns:us-east-1:000000000000:topic')).toHaveLength(1);
  expect(differences('Invalid parameter: Token', 'Invalid parameter: Topic')).toHaveLength(1);
});

it('wants exactly the recorded keys, parses JSON text where an object was recorded, and compares other values exactly', () => {
  expect(differences({ a: '1' }, { a: '1', b: '2' })).toEqual(['$.b: not recorded, present: "2"']);
  expect(differences({ a: '1', b: '2' }, { a: '1' })).toEqual(['$.b: recorded, missing']);
  expect(differences({ Policy: { x: [1, null] } }, { Policy: '{"x":[1,null]}' })).toEqual([]);
  expect(differences({ n: 200 }, { n: 400 })).toHaveLength(1);
  expect(differences([1, 2], [1])).toHaveLength(1);
});
