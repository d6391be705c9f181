/// A line diff of two texts, `-`/`+`/` ` prefixed (the dry run's sample). Common leading and
/// trailing lines are matched first; the part between is aligned by longest common subsequence
/// when it is small (at most `budget` line pairs), else shown whole as removed then added, so the
/// cost stays linear in the size of the texts whatever they hold.
public func lineDiff(_ a: String, _ b: String, budget: Int = 4_000_000) -> String {
  let x = a.split(separator: "\n", omittingEmptySubsequences: false)
  let y = b.split(separator: "\n", omittingEmptySubsequences: false)
  var prefix = 0
  while prefix < x.count && prefix < y.count && x[prefix] == y[prefix] { prefix += 1 }
  var suffix = 0
  while suffix < x.count - prefix && suffix < y.count - prefix && x[x.count - 1 - suffix] == y[y.count - 1 - suffix] {
    suffix += 1
  }
  let middleX = x[prefix..<(x.count - suffix)]
  let middleY = y[prefix..<(y.count - suffix)]
  var out = x[..<prefix].map { "  " + $0 }
  if middleX.count.multipliedReportingOverflow(by: middleY.count).partialValue <= budget
    && middleX.count < budget && middleY.count < budget
  {
    out += alignedLines(Array(middleX), Array(middleY))
  } else {
    out += middleX.map { "- " + $0 } + middleY.map { "+ " + $0 }
  }
  out += x[(x.count - suffix)...].map { "  " + $0 }
  while out.last == "  " { out.removeLast() }
  return out.joined(separator: "\n")
}

/// The LCS alignment of two short runs of lines.
private func alignedLines(_ x: [Substring], _ y: [Substring]) -> [String] {
  let width = y.count + 1
  var table = [Int](repeating: 0, count: (x.count + 1) * width)
  for i in stride(from: x.count - 1, through: 0, by: -1) {
    for j in stride(from: y.count - 1, through: 0, by: -1) {
      table[i * width + j] =
        x[i] == y[j] ? table[(i + 1) * width + j + 1] + 1 : max(table[(i + 1) * width + j], table[i * width + j + 1])
    }
  }
  var out: [String] = []
  var i = 0
  var j = 0
  while i < x.count || j < y.count {
    if i < x.count && j < y.count && x[i] == y[j] {
      out.append("  " + x[i])
      i += 1
      j += 1
    } else if j < y.count && (i == x.count || table[i * width + j + 1] >= table[(i + 1) * width + j]) {
      out.append("+ " + y[j])
      j += 1
    } else {
      out.append("- " + x[i])
      i += 1
    }
  }
  return out
}
