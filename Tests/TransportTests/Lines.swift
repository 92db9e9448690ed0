import Synchronization
import Transport

/// The lines workers print, and a way to wait for one without polling.
final class Lines: Sendable {
  private let state = Mutex<(lines: [WorkerProcess.OutputLine], waiters: [CheckedContinuation<Void, Never>])>(([], []))

  var all: [WorkerProcess.OutputLine] { state.withLock { $0.lines } }

  func append(_ line: WorkerProcess.OutputLine) {
    let waiters = state.withLock { state in
      state.lines.append(line)
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func first<T>(_ match: (WorkerProcess.OutputLine) -> T?) async -> T {
    while true {
      let lines = all
      if let found = lines.lazy.compactMap(match).first { return found }
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let changed = state.withLock { state -> Bool in
          guard state.lines.count == lines.count else { return true }
          state.waiters.append(continuation)
          return false
        }
        if changed { continuation.resume() }
      }
    }
  }
}

