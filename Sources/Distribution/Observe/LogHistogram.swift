/// A histogram of non-negative integers (nanoseconds, bytes) in logarithmic buckets: 16 to each
/// power of two, so that a percentile read from it is within 1/16 (6.25%) of the true value,
/// over the whole range of `UInt64`. Recording a value costs a few shifts and an increment: the
/// buckets are allocated with the first value, never per value. A composition records them;
/// you read them from its timings.
///
/// ```swift
/// let trips = composition.timings(of: "counter1")!.remoteActions
/// print(trips.count, trips.mean, trips.percentile(0.99))  // values, and nanoseconds
/// ```
public struct LogHistogram: Sendable, Equatable {
  /// Each power of two is cut into `1 << precisionBits` buckets.
  private static let precisionBits = 4
  private static let perOctave = 1 << precisionBits
  /// Values below `perOctave` have a bucket each; then `perOctave` buckets for every power of
  /// two up to 2^63.
  private static let bucketCount = (64 - precisionBits + 1) * perOctave

  private var buckets: [UInt64] = []
  /// How many values were recorded.
  public private(set) var count: UInt64 = 0
  /// The sum of the values recorded, saturating at `UInt64.max`.
  public private(set) var sum: UInt64 = 0
  /// The least value recorded; zero when there are none.
  public private(set) var minimum: UInt64 = 0
  /// The greatest value recorded; zero when there are none.
  public private(set) var maximum: UInt64 = 0

  /// An empty histogram: no buckets until the first value.
  package init() {}

  /// The mean of the values recorded; zero when there are none.
  ///
  /// ```swift
  /// timings.workerHandling.mean  // nanoseconds
  /// ```
  public var mean: UInt64 { count == 0 ? 0 : sum / count }

  /// Adds `value`.
  package mutating func record(_ value: UInt64) {
    if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
    buckets[Self.bucket(of: value)] &+= 1
    minimum = count == 0 ? value : min(minimum, value)
    maximum = max(maximum, value)
    count += 1
    let (total, overflow) = sum.addingReportingOverflow(value)
    sum = overflow ? .max : total
  }

  /// Adds every value `other` recorded, as if they had been recorded here.
  package mutating func add(_ other: LogHistogram) {
    guard other.count > 0 else { return }
    if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
    for index in other.buckets.indices { buckets[index] &+= other.buckets[index] }
    minimum = count == 0 ? other.minimum : min(minimum, other.minimum)
    maximum = max(maximum, other.maximum)
    count += other.count
    let (total, overflow) = sum.addingReportingOverflow(other.sum)
    sum = overflow ? .max : total
  }

  /// The value below which `fraction` (0...1) of the recorded values fall: the middle of the
  /// bucket that holds that rank, kept within the least and greatest values. Zero when empty.
  ///
  /// ```swift
  /// histogram.percentile(0.5)  // the median
  /// ```
  public func percentile(_ fraction: Double) -> UInt64 {
    guard count > 0 else { return 0 }
    let rank = max(1, UInt64((min(max(fraction, 0), 1) * Double(count)).rounded(.up)))
    var seen: UInt64 = 0
    for (index, inBucket) in buckets.enumerated() where inBucket > 0 {
      seen += inBucket
      if seen >= rank {
        let (lower, width) = Self.range(of: index)
        return min(max(lower + width / 2, minimum), maximum)
      }
    }
    return maximum
  }

  /// The bucket that holds `value`.
  private static func bucket(of value: UInt64) -> Int {
    guard value >= UInt64(perOctave) else { return Int(value) }
    let exponent = 63 - value.leadingZeroBitCount
    let shift = exponent - precisionBits
    let mantissa = Int(value >> UInt64(shift)) - perOctave
    return (shift + 1) * perOctave + mantissa
  }

  /// The least value in bucket `index`, and how many values it spans.
  private static func range(of index: Int) -> (lower: UInt64, width: UInt64) {
    guard index >= perOctave else { return (UInt64(index), 1) }
    let shift = index / perOctave - 1
    let mantissa = UInt64(index % perOctave + perOctave)
    return (mantissa << UInt64(shift), 1 << UInt64(shift))
  }
}
