/// The bounds a placement sets on each worker of one boundary: resident memory, a share of
/// one core, open descriptors. nil means no bound of that kind, as before limits existed.
///
/// ```swift
/// let limits = ResourceLimits(memoryBytes: 128 << 20, cpuPercent: 20, files: 64)
/// ```
package struct ResourceLimits: Sendable, Equatable {
  /// The most memory the worker may hold, in bytes.
  package var memoryBytes: Int?
  /// The share of one core the worker may use, in percent (1…100 of one core; more for several).
  package var cpuPercent: Int?
  /// The most descriptors the worker may have open.
  package var files: Int?

  /// Bounds of each kind given; nil leaves that kind unbounded.
  package init(memoryBytes: Int? = nil, cpuPercent: Int? = nil, files: Int? = nil) {
    (self.memoryBytes, self.cpuPercent, self.files) = (memoryBytes, cpuPercent, files)
  }

  /// No bound at all: the worker is started exactly as without limits.
  package static let none = ResourceLimits()

  /// Whether it bounds nothing.
  package var isEmpty: Bool { self == .none }
}
