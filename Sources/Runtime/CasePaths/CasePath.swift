/// A path from an enum to one of its cases: it embeds a payload in the enum, and extracts the
/// payload back when a value has that case.
///
/// Macros are not available, so a case path is made from the case itself — its embed function
/// for a case with a payload, or its value for a case without one:
///
/// ```swift
/// let counter1 = CasePath(AppAction.counter1)      // CasePath<AppAction, Counter.Action>
/// counter1.extract(from: .counter1(.incrementButtonTapped))  // .incrementButtonTapped
/// let tapped = CasePath(case: Shouting.Action.didTapShoutButton)  // CasePath<…, Void>
/// ```
///
/// Operators take the embed function directly (`Scope(state: \.counter1, action:
/// Action.counter1)`), so a case path rarely needs to be spelled out.
public struct CasePath<Root, Value>: Sendable {
  /// An extraction that is not one enum case, and how it names itself.
  final class Function: Sendable {
    let extract: @Sendable (Root) -> Value?
    let naming: Naming?

    init(extract: @escaping @Sendable (Root) -> Value?, naming: Naming?) {
      self.extract = extract
      self.naming = naming
    }
  }

  /// How a path made of several cases names itself: `"internal.child"`.
  struct Naming: Sendable {
    let name: @Sendable (Root) -> String?
    let staticName: String?
  }

  // How to extract: by `layout` or by `function`, or, with neither, the identity (a path from
  // a value to itself; `Value` is `Root`). Plain fields, each a word
  // or less and aligned, rather than an enum of the two: the enum's payload had an odd size,
  // which the compiler copied in overlapping words, and every read after such a copy stalled
  // (measured: most of a nested scope's time).
  let embedding: @Sendable (Value) -> Root
  /// For a path to one enum case: the enum's layout, read with no closure to call.
  let layout: EnumLayout?
  /// The case's tag, when it was settled up front; otherwise `EnumLayout.unsettledTag`, and
  /// each extraction settles it.
  let tag: UInt32
  /// True when `Root` has this one case, stored inline, whose payload is exactly `Value`: the
  /// enum is laid out as its payload, and every value is on the path (a feature's action
  /// that only wraps its child's, at every level of a nested composition).
  let isWholeValue: Bool
  /// True when `Root` is one byte with no references (`EnumLayout.isByteSized`) and `tag` is
  /// settled: a value's case and payload are looked up by its byte, with no witness to call.
  let isByteSized: Bool
  /// For any other path: the extraction as a function, boxed so that the common case path
  /// stays small to copy.
  let function: Function?

  /// A case path to the case that `embed` builds: the case itself, or a closure that puts its
  /// argument unchanged into that case.
  ///
  /// ```swift
  /// CasePath(Action.counter1)
  /// ```
  @inline(__always)
  public init(_ embed: @escaping @Sendable (Value) -> Root) {
    let layout = EnumLayout.requiring(Root.self)
    if Value.self == Root.self, !layout.cases.contains(where: { $0.payloadType == ObjectIdentifier(Root.self) }) {
      // No case of `Root` carries a `Root`, so `embed` is no case: it is the identity
      // (`{ $0 }`), the path from an action to itself, whose every value is on the path.
      self.init(embedding: embed, layout: nil, tag: EnumLayout.unsettledTag, function: nil)
      return
    }
    // When several cases carry a `Value`, settle which one is ours now, once, rather than by
    // re-embedding the payload on every extraction; most enums never need it.
    var tag =
      layout.hasSharedPayloadTypes
      ? layout.tag(embeddedBy: embed) ?? EnumLayout.unsettledTag : EnumLayout.unsettledTag
    // A byte-sized enum is read by its expected tag: settled above, or the one case that
    // carries a `Value`.
    if layout.isByteSized, tag == EnumLayout.unsettledTag, let only = layout.onlyCase(carrying: Value.self) {
      tag = only
    }
    self.init(
      embedding: embed, layout: layout, tag: tag, function: nil,
      isWholeValue: layout.isTransparent && layout.cases[0].payloadType == ObjectIdentifier(Value.self),
      isByteSized: layout.isByteSized && tag != EnumLayout.unsettledTag
        && layout.cases[Int(tag)].payloadType == ObjectIdentifier(Value.self))
  }

  /// A case path built from its two directions, for paths that are not a single enum case.
  ///
  /// ```swift
  /// CasePath(embed: { .some($0) }, extract: { $0 })
  /// ```
  public init(
    embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.init(embed: embed, extract: extract, naming: nil)
  }

  private init(
    embed: @escaping @Sendable (Value) -> Root, extract: @escaping @Sendable (Root) -> Value?,
    naming: Naming?
  ) {
    self.init(
      embedding: embed, layout: nil, tag: EnumLayout.unsettledTag,
      function: Function(extract: extract, naming: naming))
  }

  private init(
    embedding: @escaping @Sendable (Value) -> Root, layout: EnumLayout?, tag: UInt32,
    function: Function?, isWholeValue: Bool = false, isByteSized: Bool = false
  ) {
    self.embedding = embedding
    self.layout = layout
    self.tag = tag
    self.function = function
    self.isWholeValue = isWholeValue
    self.isByteSized = isByteSized
  }

  /// Wraps `value` in the case.
  public func embed(_ value: Value) -> Root { embedding(value) }

  /// The embed function itself; passing it on allocates nothing, unlike `embed(_:)` as a
  /// value.
  var embedder: @Sendable (Value) -> Root { embedding }

  /// The payload of `root` if it has this path's case, otherwise nil.
  @inline(__always)
  public func extract(from root: Root) -> Value? {
    if isWholeValue {
      // Checked when the path was made: the enum's bytes are exactly a `Value`'s.
      return withUnsafePointer(to: root) { UnsafeRawPointer($0).load(as: Value.self) }
    }
    if isByteSized { return layout.unsafelyUnwrapped.payload(ofByteSized: root, tag: tag, as: Value.self) }
    if let layout { return layout.payload(of: root, expectedTag: tag, embed: embedding) }
    if let function { return function.extract(root) }
    // The identity, made only when `Value` is `Root` (see `init(_:)`): the same type.
    return unsafeBitCast(root, to: Value.self)
  }

  /// Replaces the payload of `root` in place when it has this path's case.
  ///
  /// Returns false, leaving `root` untouched, when `root` has another case.
  @discardableResult
  public func modify(_ root: inout Root, _ body: (inout Value) -> Void) -> Bool {
    guard var value = extract(from: root) else { return false }
    body(&value)
    root = embedding(value)
    return true
  }

  /// A path one case deeper: from this path's payload into one of its own cases.
  ///
  /// ```swift
  /// CasePath(Action.internal).appending(Action.InternalAction.child)
  /// ```
  public func appending<Leaf>(_ next: CasePath<Value, Leaf>) -> CasePath<Root, Leaf> {
    let naming = CasePath<Root, Leaf>.Naming(
      name: { [self] root in
        guard let outer = name(in: root), let value = extract(from: root),
          let inner = next.name(in: value)
        else { return nil }
        return "\(outer).\(inner)"
      },
      staticName: staticName.flatMap { outer in next.staticName.map { "\(outer).\($0)" } })
    return CasePath<Root, Leaf>(
      embed: { [embedding] leaf in embedding(next.embed(leaf)) },
      extract: { [self] root in extract(from: root).flatMap(next.extract(from:)) },
      naming: naming)
  }

  /// The name of the case `root` has, as written in its enum, when `root` is on this path:
  /// `"counter1"` for `.counter1(.incrementButtonTapped)`, dotted for a path of several cases.
  func name(in root: Root) -> String? {
    if let layout { return layout.cases[Int(layout.tag(of: root))].name }
    return function?.naming?.name(root) ?? nil
  }

  /// The name of this path's case, found without a value: from the case's payload type when
  /// no other case has it, otherwise by embedding a sample payload.
  var staticName: String? {
    guard let layout else { return function?.naming?.staticName ?? nil }
    if tag != EnumLayout.unsettledTag { return layout.cases[Int(tag)].name }
    let candidates = layout.cases.filter { $0.payloadType == ObjectIdentifier(Value.self) }
    if candidates.count == 1 { return candidates[0].name }
    guard let sample = EnumLayout.of(Value.self)?.sample(Value.self) else { return nil }
    return layout.cases[Int(layout.tag(of: embedding(sample)))].name
  }

  /// A path one case deeper, named by the inner case itself.
  public func appending<Leaf>(
    _ next: @escaping @Sendable (Leaf) -> Value
  ) -> CasePath<Root, Leaf> {
    appending(CasePath<Value, Leaf>(next))
  }
}

extension CasePath where Value == Void, Root: Sendable {
  /// A case path to a case without a payload, named by the case's value.
  ///
  /// ```swift
  /// CasePath(case: Action.didTapShoutButton)
  /// ```
  public init(case root: Root) {
    let layout = EnumLayout.requiring(Root.self)
    let tag = layout.tag(of: root)
    self.init(embed: { _ in root }, extract: { layout.tag(of: $0) == tag ? () : nil })
  }
}

extension CasePath {
  /// The case name that `root` has, as written in its enum (`"counter1"` for
  /// `.counter1(.incrementButtonTapped)`).
  public static func caseName(of root: Root) -> String? {
    Mirror(reflecting: root).children.first?.label ?? "\(root)"
  }
}

extension EnumLayout {
  @inline(__always)
  static func requiring<Root>(_ root: Root.Type) -> EnumLayout {
    guard let layout = of(root) else { refuse(Root.self) }
    return layout
  }

  @inline(never)
  static func refuse(_ type: Any.Type) -> Never {
    preconditionFailure(
      """
      A case path needs an enum, but "\(type)" is not one. Name a case of an enum, for \
      example "Action.counter1".
      """)
  }
}
