/// Looks up a type by a mangled name that came from the peer.
///
/// Only a plain name goes to the Swift runtime: letters, digits and underscores, as the mangled
/// name of an internal or public type is. Other bytes can be symbolic references, which the
/// runtime follows as pointers, and a made-up one crashes it. A private type's name holds a
/// `$`, and is never looked up. (`CrossingKeys`, in the runtime, keeps the same rule for
/// dependency keys.)
///
/// ```swift
/// let type = PeerTypeName.type(named: name) as? any CodableError.Type
/// ```
package enum PeerTypeName {
  /// The longest name looked up: far beyond any real type's.
  static let longestName = 1_024

  /// The type whose mangled name is `name`, if this process has one and the name is plain.
  package static func type(named name: String) -> Any.Type? {
    guard name.utf8.count <= longestName, name.utf8.allSatisfy(isPlain) else { return nil }
    return _typeByName(name)
  }

  private static func isPlain(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
      UInt8(ascii: "_"):
      true
    default: false
    }
  }
}
