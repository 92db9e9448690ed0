import Bulkhead
import BulkheadDistribution

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file of Chrome trace events (`{"traceEvents":[...]}`) being written: events are buffered
/// and written in blocks, and `finish()` writes the closing brackets, so that the file is valid
/// JSON once finished. Not thread-safe: only the trace's writer thread (`TraceEvents`) writes it.
struct TraceFile: ~Copyable {
  /// The trace at `path` could not be written: the system's `errno`.
  struct Failure: Error, Equatable, CustomStringConvertible {
    let path: String
    let errno: Int32
    var description: String { "cannot write the trace \(path): \(String(cString: strerror(errno)))" }
  }

  let path: String
  private var descriptor: Int32
  private var buffer: [UInt8] = []
  private var isFirst = true
  /// The first write that failed; the trace stops there.
  private(set) var failure: Failure?

  /// How much is buffered before it is written.
  private static let block = 64 * 1024

  /// Creates (or empties) the file at `path` and writes the opening.
  init(path: String) throws(Failure) {
    self.path = path
    descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw Failure(path: path, errno: errno) }
    buffer.reserveCapacity(Self.block + 1024)
    buffer.append(contentsOf: #"{"displayTimeUnit":"ns","traceEvents":["#.utf8)
  }

  var isOpen: Bool { descriptor >= 0 }

  /// Adds one event: `members` appends its JSON object's members, without braces.
  mutating func append(_ members: (inout [UInt8]) -> Void) {
    guard isOpen else { return }
    buffer.append(isFirst ? "\n{" : ",\n{")
    members(&buffer)
    buffer.append(UInt8(ascii: "}"))
    isFirst = false
    if buffer.count >= Self.block { flush() }
  }

  /// Writes the closing and closes the file; later events are ignored.
  mutating func finish() {
    guard isOpen else { return }
    buffer.append(contentsOf: "\n]}\n".utf8)
    flush()
    close(descriptor)
    descriptor = -1
  }

  private mutating func flush() {
    var written = 0
    while written < buffer.count, failure == nil {
      let result = buffer.withUnsafeBytes { bytes in
        write(descriptor, bytes.baseAddress! + written, bytes.count - written)
      }
      if result > 0 {
        written += result
      } else if result < 0, errno == EINTR {
        continue
      } else {
        failure = Failure(path: path, errno: errno)
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }
}
