import Bulkhead
import Synchronization
internal import Transport

/// A worker of the composition's warm pool, as the host holds it while it is idle: started
/// from the template ahead of need, connected on both connections, authenticated, and
/// greeted as serving no boundary yet. A boundary claims it once
/// (`WorkerLink(_:claiming:)`); an idle one is let go at shutdown or when it exits.
final class WarmWorker: Sendable {
  let process: any WorkerHandle
  /// Its connections, until claimed or let go.
  private let connected: Mutex<WorkerLink.Connected?>
  /// The boundary its output lines are labelled with: the pool's until claimed.
  private let label: Locked<String>

  var pid: Int32 { process.pid }

  init(_ connected: sending WorkerLink.Connected, label: Locked<String>) {
    process = connected.process
    self.connected = Mutex(connected)
    self.label = label
  }

  /// Its connections, for the boundary `boundary` that takes it, whose name its output
  /// lines carry from now on; nil when it was claimed or let go already.
  func claim(label boundary: String) -> WorkerLink.Connected? {
    label.withLock { $0 = boundary }
    return connected.withLock { $0.take() }
  }

  /// Lets the worker go unclaimed: its connections end, and it exits on its own when its
  /// input closes.
  func close() {
    guard let connected = connected.withLock({ $0.take() }) else { return }
    connected.system.close()
    connected.effects.socket.close()
    process.closeInput()
  }
}
