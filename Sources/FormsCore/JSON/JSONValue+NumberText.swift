extension JSONValue {
  /// This value (the output of a program such as jq, which prints numbers its own way) with
  /// every number that equals the number at the same place in `original` written as `original`
  /// wrote it: `245122.0` stays `245122.0` where the program left it alone, so a diff or an audit
  /// record shows only what changed.
  public func keepingNumberText(of original: JSONValue) -> JSONValue {
    switch (self, original) {
    case (.number, .number) where FilterExpression.order(self, original) == 0:
      return original
    case (.object(let object), .object(let before)):
      var out = JSONObject()
      for member in object.members {
        out[member.key] = before[member.key].map { member.value.keepingNumberText(of: $0) } ?? member.value
      }
      return .object(out)
    case (.array(let elements), .array(let before)):
      return .array(
        elements.enumerated().map { index, element in
          index < before.count ? element.keepingNumberText(of: before[index]) : element
        })
    default:
      return self
    }
  }
}
