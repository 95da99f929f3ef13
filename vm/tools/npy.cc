#include "vm/tools/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "vm/dtype.h"

namespace kiln::vm {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr uint64_t kMaxNpyElements = uint64_t{1} << 34;

struct DescrEntry {
  const char* descr;
  fb::DType dtype;
};
constexpr DescrEntry kDescrs[] = {
#define KILN_DTYPE(name, upper, code, size, text, numpy) {numpy, fb::DType::name},
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    // bfloat16 has no NumPy type: ml_dtypes' arrays save as 2-byte void, "<V2"
    // (the table's) or "|V2".
    {"|V2", fb::DType::BF16},
};

// The value that follows `'key':` in the header dictionary, up to the next
// top-level comma or closing brace.
absl::StatusOr<std::string> HeaderField(const std::string& header, const std::string& key,
                                        const std::string& origin) {
  std::string quoted = "'" + key + "'";
  size_t at = header.find(quoted);
  if (at == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("'", origin, "': .npy header has no ", key));
  }
  size_t colon = header.find(':', at + quoted.size());
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("'", origin, "': malformed .npy header"));
  }
  size_t start = colon + 1;
  int depth = 0;
  size_t end = start;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    if (depth < 0) break;
  }
  std::string value = header.substr(start, end - start);
  return std::string(absl::StripAsciiWhitespace(value));
}

}  // namespace

int64_t NpyArray::element_count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

absl::StatusOr<NpyArray> ParseNpy(const std::string& bytes, const std::string& origin) {
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("'", origin, "' is not a valid .npy file: ", what));
  };
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0) return bad("bad magic");
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t prefix = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= size_t{static_cast<uint8_t>(bytes[8 + i])} << (8 * i);
    prefix = 12;
  } else {
    return bad(absl::StrCat("unsupported format version ", major));
  }
  if (header_len > bytes.size() - prefix) return bad("truncated header");
  const std::string header = bytes.substr(prefix, header_len);

  absl::StatusOr<std::string> descr = HeaderField(header, "descr", origin);
  if (!descr.ok()) return descr.status();
  absl::StatusOr<std::string> order = HeaderField(header, "fortran_order", origin);
  if (!order.ok()) return order.status();
  absl::StatusOr<std::string> shape_text = HeaderField(header, "shape", origin);
  if (!shape_text.ok()) return shape_text.status();

  NpyArray array;
  std::string d = std::string(absl::StripSuffix(absl::StripPrefix(*descr, "'"), "'"));
  for (const DescrEntry& entry : kDescrs) {
    if (d == entry.descr) array.dtype = entry.dtype;
  }
  if (array.dtype == fb::DType::Unknown) return bad(absl::StrCat("unsupported dtype ", *descr));
  if (*order != "False") return bad("Fortran-ordered arrays are not supported");

  absl::string_view dims = *shape_text;
  if (!absl::ConsumePrefix(&dims, "(") || !absl::ConsumeSuffix(&dims, ")")) {
    return bad(absl::StrCat("malformed shape ", *shape_text));
  }
  uint64_t count = 1;
  for (absl::string_view part : absl::StrSplit(dims, ',', absl::SkipWhitespace())) {
    int64_t dim = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &dim) || dim < 0) {
      return bad(absl::StrCat("malformed shape ", *shape_text));
    }
    array.shape.push_back(dim);
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(dim), &count) ||
        count > kMaxNpyElements) {
      return bad("too many elements");
    }
  }
  const uint64_t data_bytes = count * DTypeSize(array.dtype);
  const size_t offset = prefix + header_len;
  if (bytes.size() - offset != data_bytes) {
    return bad(absl::StrCat("holds ", bytes.size() - offset, " data bytes; shape ", *shape_text,
                            " needs ", data_bytes));
  }
  array.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(offset), bytes.end());
  return array;
}

absl::StatusOr<NpyArray> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  std::ostringstream contents;
  contents << in.rdbuf();
  return ParseNpy(contents.str(), path);
}

std::string SerializeNpy(const NpyArray& array) {
  const char* descr = "<f4";
  for (const DescrEntry& entry : kDescrs) {
    if (entry.dtype == array.dtype) {
      descr = entry.descr;  // the first spelling listed
      break;
    }
  }
  std::string shape = "(";
  for (int64_t d : array.shape) absl::StrAppend(&shape, d, ",");
  if (array.shape.size() > 1) shape.pop_back();
  shape += ")";
  std::string header =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad so the data starts on a 64-byte boundary, header ends with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.data.size());
  return out;
}

absl::Status WriteNpy(const std::string& path, const NpyArray& array) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "'"));
  std::string bytes = SerializeNpy(array);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return absl::DataLossError(absl::StrCat("short write to '", path, "'"));
  return absl::OkStatus();
}

}  // namespace kiln::vm
