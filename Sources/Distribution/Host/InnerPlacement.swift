import Foundation

/// The entries of a placement inside one placed boundary: what the worker of that boundary
/// places in workers of its own (nested placement). The host hands them over in the worker's
/// launch, as one line (`brief`) that the transport passes on without reading.
///
/// ```swift
/// let inner = InnerPlacement(inside: "profile", of: placement, policy: .standard)  // profile.avatar, …
/// let same = try InnerPlacement(brief: inner.brief)
/// ```
struct InnerPlacement: Sendable, Equatable, Codable {
  /// The placement file the entries come from, for error messages.
  let file: String
  /// The entries below the boundary, at every depth, with their paths from the app's root.
  let entries: [Placement.Entry]
  /// How often the worker may restart its workers: the host's own policy, for the whole tree.
  let restartPolicy: RestartPolicy

  /// The entries of `placement` strictly inside `outer`, restarted under `policy`.
  init(inside outer: String, of placement: Placement, policy: RestartPolicy) {
    file = placement.file
    entries = placement.entries.filter { $0.path.hasPrefix(outer + ".") }
    restartPolicy = policy
  }

  /// The entries in a worker's launch line: none when it is empty.
  ///
  /// - Throws: `DistributionError.protocolViolation` when the line is not one a host writes.
  init(brief: String) throws(DistributionError) {
    guard !brief.isEmpty else {
      self.init(file: "", entries: [], restartPolicy: .standard)
      return
    }
    guard let data = Data(base64Encoded: brief), let decoded = try? JSONDecoder().decode(Self.self, from: data) else {
      throw .protocolViolation("the host's launch line is not a placement of inner boundaries")
    }
    self = decoded
  }

  private init(file: String, entries: [Placement.Entry], restartPolicy: RestartPolicy) {
    (self.file, self.entries, self.restartPolicy) = (file, entries, restartPolicy)
  }

  /// One line without control characters (base64 of JSON): empty when there are no entries.
  var brief: String {
    guard !entries.isEmpty, let data = try? JSONEncoder().encode(self) else { return "" }
    return data.base64EncodedString()
  }

  /// The entries as a placement the worker's own composition starts.
  var placement: Placement { Placement(file: file, entries: entries) }
}
