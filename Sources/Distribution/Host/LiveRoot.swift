import Synchronization
package import Transport

/// A composition's root store as its control endpoint reaches it: `./compose.sh send` hands
/// it actions as text and `./compose.sh state` asks for its state. The host's tools make one
/// for the store they run, once its script has ended (`Composition.liveRoot`).
///
/// ```swift
/// composition.liveRoot.publish(console)
/// let steps = try await composition.liveRoot.wait(within: .seconds(4))?.send(["counter1(.incrementButtonTapped)"])
/// ```
package protocol LiveRoot: Sendable {
  /// Reads every text in `actions` as an action first, so that a bad one sends none, then
  /// sends them in turn: each action as the store describes it and the state after it (once
  /// its effects have finished, if the app's script awaits them, as `run` shows it).
  ///
  /// - Throws: `ControlError.actionUnreadable` for the first text that is not an action,
  ///   `ControlError.notDecodable` when the root action cannot be read from text at all.
  @MainActor func send(_ actions: [String]) async throws(ControlError) -> [Wire.SentAction]

  /// The root state, or the state of `boundary`, printed as `run` prints it, or as JSON.
  ///
  /// - Throws: `ControlError.noStateAt` for a boundary whose state cannot be found,
  ///   `ControlError.notEncodable` for JSON of a state that is not `Encodable`.
  @MainActor func state(of boundary: String?, json: Bool) throws(ControlError) -> String
}

/// Where a composition's `LiveRoot` is published once its script has ended, and where
/// control calls that come earlier wait for it.
package final class LiveRootSlot: Sendable {
  private struct Contents {
    var root: (any LiveRoot)?
    var waiters: [Int: CheckedContinuation<(any LiveRoot)?, Never>] = [:]
    var nextWaiter = 0
  }

  private let contents = Mutex(Contents())

  package init() {}

  /// Makes `root` the one control calls reach, and hands it to the calls waiting for it.
  package func publish(_ root: any LiveRoot) {
    let waiters = contents.withLock { contents in
      contents.root = root
      defer { contents.waiters = [:] }
      return contents.waiters.values
    }
    for waiter in waiters { waiter.resume(returning: root) }
  }

  /// The published root; if there is none yet, waits for it up to `timeout`, and nil then.
  package func wait(within timeout: Duration) async -> (any LiveRoot)? {
    await withCheckedContinuation { continuation in
      let number: Int? = contents.withLock { contents in
        guard contents.root == nil else { return nil }
        defer { contents.nextWaiter += 1 }
        contents.waiters[contents.nextWaiter] = continuation
        return contents.nextWaiter
      }
      guard let number else {
        continuation.resume(returning: contents.withLock { $0.root })
        return
      }
      Task { [self] in
        try? await Task.sleep(for: timeout)
        self.contents.withLock { $0.waiters.removeValue(forKey: number) }?.resume(returning: nil)
      }
    }
  }
}

extension Wire {
  /// One action `./compose.sh send` sent: as the store describes it, the state after it as
  /// `run` prints it, and whether effects it started were still running then.
  package struct SentAction: Equatable, Sendable, WireCodable {
    package var action: String
    package var state: String
    package var effectsRunning: Bool

    package init(action: String, state: String, effectsRunning: Bool) {
      (self.action, self.state, self.effectsRunning) = (action, state, effectsRunning)
    }

    package init(from reader: inout ByteReader) throws(TransportError) {
      action = try reader.readString()
      state = try reader.readString()
      effectsRunning = try reader.readBool()
    }

    package func write(to writer: inout ByteWriter) {
      writer.write(action)
      writer.write(state)
      writer.write(effectsRunning)
    }
  }
}
