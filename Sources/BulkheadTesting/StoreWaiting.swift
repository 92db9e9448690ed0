@_spi(Testing) import Bulkhead

extension Store {
  /// Waits until `condition` holds or `timeout` passes; returns whether it holds. Wakes only
  /// when an action was processed, an effect finished or the deadline came.
  func wait(until condition: () -> Bool, timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    let alarm = Task { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      self?.signalChange()
    }
    defer { alarm.cancel() }
    while true {
      let generation = changeGeneration
      if condition() { return true }
      if ContinuousClock.now >= deadline { return false }
      await waitForChange(after: generation)
    }
  }
}
