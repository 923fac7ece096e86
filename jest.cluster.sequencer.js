const Sequencer = require('@jest/test-sequencer').default;

/** Runs the cluster suites in file-name order, so the node they kill is killed last. */
class ByName extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path));
  }
}

module.exports = ByName;
