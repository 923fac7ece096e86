import { postgresArray } from '../../../src/store/postgresArray';

describe('postgresArray', () => {
  it('writes numbers bare, strings quoted, and null as NULL', () => {
    expect(postgresArray([1, 22, 1733550000000])).toBe('{1,22,1733550000000}');
    expect(postgresArray(['run-1', 'completed'])).toBe('{"run-1","completed"}');
    expect(postgresArray(['a', null, 'NULL'])).toBe('{"a",NULL,"NULL"}');
    expect(postgresArray([])).toBe('{}');
  });

  it('escapes quotes and backslashes inside an element, and nothing else', () => {
    expect(postgresArray(['{"text":"x"}'])).toBe('{"{\\"text\\":\\"x\\"}"}');
    expect(postgresArray(['a\\b', 'c,d', ' e ', ''])).toBe('{"a\\\\b","c,d"," e ",""}');
  });
});
