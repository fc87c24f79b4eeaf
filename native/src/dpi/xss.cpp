// ④ libinjection's XSS test: see xss.h. Our own code; the blacklisted tags,
// attributes and URL schemes are libinjection's data (data/xss.tsv). Its
// quirks are kept on purpose (a 0xFF byte read as the end of input where it
// skips white space, "&#" before fewer than two characters decoding to '#'),
// since the answers are compared with nDPI's.
#include "dpi/xss.h"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace fg {
namespace {

enum class Attr : uint8_t { None, Black, Url, Style, Indirect };

#include "dpi/generated/xss.inc"

#define FG_S(n) n,
constexpr std::string_view kTags[] = {FG_XSS_TAGS(FG_S)};
constexpr std::string_view kUrls[] = {FG_XSS_URLS(FG_S)};
#undef FG_S
struct AttrName {
  std::string_view name;
  Attr type;
};
#define FG_A(n, t) {n, Attr::t},
constexpr AttrName kAttrs[] = {FG_XSS_ATTRIBUTES(FG_A)};
#undef FG_A

inline char up(char c) { return c >= 'a' && c <= 'z' ? char(c - 0x20) : c; }

// b (n bytes) upper-cased is exactly upper. libinjection skips NULs in b;
// nDPI's inputs have none.
bool same(std::string_view upper, const char* b, size_t n) {
  if (n != upper.size()) return false;
  for (size_t i = 0; i < n; i++)
    if (up(b[i]) != upper[i]) return false;
  return true;
}

// b's first upper.size() bytes (b has at least that many) upper-cased are upper
bool starts(std::string_view upper, const char* b) { return same(upper, b, upper.size()); }

// ---- HTML5 tokenizer (libinjection's subset of the spec's states) ----

enum class Tok : uint8_t { DataText, TagNameOpen, TagNameClose, TagNameSelfClose, TagData, TagClose, AttrName,
                           AttrValue, TagComment, Doctype };

enum class St : uint8_t { Eof, Data, TagOpen, TagName, TagNameClose, EndTagOpen, SelfClosingStartTag,
                          BeforeAttrName, AttrName, AfterAttrName, BeforeAttrValue, AttrValueDouble,
                          AttrValueSingle, AttrValueBack, AttrValueNoQuote, AfterAttrValueQuoted, Comment, Cdata,
                          BogusComment, BogusComment2, MarkupDeclarationOpen, Doctype };

constexpr int kEof = -1;

inline bool h5_white(char c) { return c == 0 || std::strchr(" \t\n\v\f\r", c) != nullptr; }
inline bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class Html5 {
 public:
  const char* tok = nullptr;
  size_t tok_len = 0;
  Tok type = Tok::DataText;

  Html5(const char* s, size_t n, St start) : s_(s), n_(n), st_(start) {}

  // The next token; false at the end. A state "moving on" to another state
  // within the same step runs it at once (st = …; continue); the state kept
  // for the next step is st_.
  bool next() {
    St st = st_;
    for (;;) {
      switch (st) {
        case St::Eof: return false;
        case St::Data: {
          const auto* lt = find('<', pos_);
          if (!lt) {
            emit(pos_, n_ - pos_, Tok::DataText);
            st_ = St::Eof;
            return tok_len != 0;
          }
          emit(pos_, size_t(lt - s_) - pos_, Tok::DataText);
          pos_ = size_t(lt - s_) + 1;
          st_ = St::TagOpen;
          if (tok_len == 0) {
            st = St::TagOpen;
            continue;
          }
          return true;
        }
        case St::TagOpen: {
          if (pos_ >= n_) return false;
          const char c = s_[pos_];
          if (c == '!') {
            pos_++;
            st = St::MarkupDeclarationOpen;
          } else if (c == '/') {
            pos_++;
            close_ = true;
            st = St::EndTagOpen;
          } else if (c == '?') {
            pos_++;
            st = St::BogusComment;
          } else if (c == '%') {  // IE's and old Safari's <% … %>
            pos_++;
            st = St::BogusComment2;
          } else if (alpha(c) || c == 0) {
            st = St::TagName;
          } else if (pos_ == 0) {
            st = St::Data;
          } else {  // "<" then something else: text
            emit(pos_ - 1, 1, Tok::DataText);
            st_ = St::Data;
            return true;
          }
          continue;
        }
        case St::EndTagOpen: {
          if (pos_ >= n_) return false;
          const char c = s_[pos_];
          if (c == '>') {
            st = St::Data;
          } else if (alpha(c)) {
            st = St::TagName;
          } else {
            close_ = false;
            st = St::BogusComment;
          }
          continue;
        }
        case St::TagNameClose:
          close_ = false;
          emit(pos_, 1, Tok::TagNameClose);
          pos_++;
          st_ = pos_ < n_ ? St::Data : St::Eof;
          return true;
        case St::TagName: {
          for (size_t p = pos_; p < n_; p++) {
            const char c = s_[p];
            if (c == 0) continue;  // old browsers ignore NULs in tag names
            if (h5_white(c) || c == '/') {
              emit(pos_, p - pos_, Tok::TagNameOpen);
              pos_ = p + 1;
              st_ = c == '/' ? St::SelfClosingStartTag : St::BeforeAttrName;
              return true;
            }
            if (c == '>') {
              emit(pos_, p - pos_, Tok::TagNameOpen);
              if (close_) {
                pos_ = p + 1;
                close_ = false;
                type = Tok::TagClose;
                st_ = St::Data;
              } else {
                pos_ = p;
                st_ = St::TagNameClose;
              }
              return true;
            }
          }
          emit(pos_, n_ - pos_, Tok::TagNameOpen);
          st_ = St::Eof;
          return true;
        }
        case St::BeforeAttrName: {
          const int c = skip_white();
          if (c == kEof) return false;
          if (c == '/') {
            pos_++;
            if (pos_ < n_ && s_[pos_] != '>') continue;  // still before an attribute name
            st = St::SelfClosingStartTag;
            continue;
          }
          if (c == '>') {
            st_ = St::Data;
            emit(pos_, 1, Tok::TagNameClose);
            pos_++;
            return true;
          }
          st = St::AttrName;
          continue;
        }
        case St::AttrName: {
          for (size_t p = pos_ + 1; p < n_; p++) {
            const char c = s_[p];
            St then;
            size_t at = p + 1;
            if (h5_white(c))
              then = St::AfterAttrName;
            else if (c == '/')
              then = St::SelfClosingStartTag;
            else if (c == '=')
              then = St::BeforeAttrValue;
            else if (c == '>')
              then = St::TagNameClose, at = p;
            else
              continue;
            emit(pos_, p - pos_, Tok::AttrName);
            st_ = then;
            pos_ = at;
            return true;
          }
          emit(pos_, n_ - pos_, Tok::AttrName);
          st_ = St::Eof;
          pos_ = n_;
          return true;
        }
        case St::AfterAttrName: {
          const int c = skip_white();
          if (c == kEof) return false;
          if (c == '/') {
            pos_++;
            st = St::SelfClosingStartTag;
          } else if (c == '=') {
            pos_++;
            st = St::BeforeAttrValue;
          } else if (c == '>') {
            st = St::TagNameClose;
          } else {
            st = St::AttrName;
          }
          continue;
        }
        case St::BeforeAttrValue: {
          const int c = skip_white();
          if (c == kEof) {
            st_ = St::Eof;
            return false;
          }
          st = c == '"' ? St::AttrValueDouble : c == '\'' ? St::AttrValueSingle : c == '`' ? St::AttrValueBack
                                                                                           : St::AttrValueNoQuote;
          continue;
        }
        case St::AttrValueDouble: return quoted('"');
        case St::AttrValueSingle: return quoted('\'');
        case St::AttrValueBack: return quoted('`');  // IE
        case St::AttrValueNoQuote: {
          for (size_t p = pos_; p < n_; p++) {
            const char c = s_[p];
            if (h5_white(c)) {
              emit(pos_, p - pos_, Tok::AttrValue);
              pos_ = p + 1;
              st_ = St::BeforeAttrName;
              return true;
            }
            if (c == '>') {
              emit(pos_, p - pos_, Tok::AttrValue);
              pos_ = p;
              st_ = St::TagNameClose;
              return true;
            }
          }
          st_ = St::Eof;
          emit(pos_, n_ - pos_, Tok::AttrValue);
          return true;
        }
        case St::AfterAttrValueQuoted: {
          if (pos_ >= n_) return false;
          const char c = s_[pos_];
          if (h5_white(c)) {
            pos_++;
            st = St::BeforeAttrName;
          } else if (c == '/') {
            pos_++;
            st = St::SelfClosingStartTag;
          } else if (c == '>') {
            emit(pos_, 1, Tok::TagNameClose);
            pos_++;
            st_ = St::Data;
            return true;
          } else {
            st = St::BeforeAttrName;
          }
          continue;
        }
        case St::SelfClosingStartTag: {
          if (pos_ >= n_) return false;
          if (s_[pos_] == '>') {
            emit(pos_ - 1, 2, Tok::TagNameSelfClose);
            st_ = St::Data;
            pos_++;
            return true;
          }
          st = St::BeforeAttrName;
          continue;
        }
        case St::BogusComment: {  // up to '>'
          const auto* gt = find('>', pos_);
          if (!gt) {
            emit(pos_, n_ - pos_, Tok::TagComment);
            pos_ = n_;
            st_ = St::Eof;
          } else {
            emit(pos_, size_t(gt - s_) - pos_, Tok::TagComment);
            pos_ = size_t(gt - s_) + 1;
            st_ = St::Data;
          }
          return true;
        }
        case St::BogusComment2: {  // up to "%>"
          for (size_t p = pos_;;) {
            const auto* pc = find('%', p);
            if (!pc || size_t(pc - s_) + 1 >= n_) {
              emit(pos_, n_ - pos_, Tok::TagComment);
              pos_ = n_;
              st_ = St::Eof;
              return true;
            }
            if (pc[1] != '>') {
              p = size_t(pc - s_) + 1;
              continue;
            }
            emit(pos_, size_t(pc - s_) - pos_, Tok::TagComment);
            pos_ = size_t(pc - s_) + 2;
            st_ = St::Data;
            return true;
          }
        }
        case St::MarkupDeclarationOpen: {
          const size_t left = n_ - pos_;
          if (left >= 7 && starts("DOCTYPE", s_ + pos_)) {
            st = St::Doctype;
          } else if (left >= 7 && std::memcmp(s_ + pos_, "[CDATA[", 7) == 0) {  // case-sensitive
            pos_ += 7;
            st = St::Cdata;
          } else if (left >= 2 && s_[pos_] == '-' && s_[pos_ + 1] == '-') {
            pos_ += 2;
            st = St::Comment;
          } else {
            st = St::BogusComment;
          }
          continue;
        }
        case St::Comment: return comment();
        case St::Cdata: {  // up to "]]>"
          for (size_t p = pos_;;) {
            const auto* rb = find(']', p);
            if (!rb || long(rb - s_) > long(n_) - 3) {
              st_ = St::Eof;
              emit(pos_, n_ - pos_, Tok::DataText);
              return true;
            }
            if (rb[1] == ']' && rb[2] == '>') {
              st_ = St::Data;
              emit(pos_, size_t(rb - s_) - pos_, Tok::DataText);
              pos_ = size_t(rb - s_) + 3;
              return true;
            }
            p = size_t(rb - s_) + 1;
          }
        }
        case St::Doctype: {
          const auto* gt = find('>', pos_);
          tok = s_ + pos_;
          type = Tok::Doctype;
          if (!gt) {
            st_ = St::Eof;
            tok_len = n_ - pos_;
          } else {
            st_ = St::Data;
            tok_len = size_t(gt - s_) - pos_;
            pos_ = size_t(gt - s_) + 1;
          }
          return true;
        }
      }
    }
  }

 private:
  const char* s_;
  size_t n_;
  size_t pos_ = 0;
  bool close_ = false;
  St st_;

  void emit(size_t at, size_t len, Tok t) { tok = s_ + at, tok_len = len, type = t; }
  const char* find(char c, size_t from) const {
    return from < n_ ? static_cast<const char*>(std::memchr(s_ + from, c, n_ - from)) : nullptr;
  }

  // The first byte that is not white space, as a signed char: 0xFF comes
  // back as -1, the end of input, as in libinjection.
  int skip_white() {
    while (pos_ < n_) {
      const char c = s_[pos_];
      if (c == 0 || c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r')
        pos_++;
      else
        return static_cast<signed char>(c);
    }
    return kEof;
  }

  // A quoted value up to its quote. Started in this state (pos 0: the
  // input is the value's inside), no opening quote to skip.
  bool quoted(char q) {
    if (pos_ > 0) pos_++;
    const auto* e = find(q, pos_);
    if (!e) {
      emit(pos_, n_ - pos_, Tok::AttrValue);
      st_ = St::Eof;
    } else {
      emit(pos_, size_t(e - s_) - pos_, Tok::AttrValue);
      st_ = St::AfterAttrValueQuoted;
      pos_ += tok_len + 1;
    }
    return true;
  }

  // "<!--" up to "-->" or "--!>" (NULs between the dashes skipped), or the end
  bool comment() {
    const char* end = s_ + n_;
    for (size_t p = pos_;;) {
      const auto* d = find('-', p);
      auto to_end = [&] {
        st_ = St::Eof;
        emit(pos_, n_ - pos_, Tok::TagComment);
        return true;
      };
      if (!d || long(d - s_) > long(n_) - 3) return to_end();
      size_t off = 1;
      while (d + off < end && d[off] == 0) off++;
      if (d + off == end) return to_end();
      if (d[off] != '-' && d[off] != '!') {
        p = size_t(d - s_) + 1;
        continue;
      }
      off++;
      if (d + off == end) return to_end();
      if (d[off] != '>') {
        p = size_t(d - s_) + 1;
        continue;
      }
      off++;
      emit(pos_, size_t(d - s_) - pos_, Tok::TagComment);
      pos_ = size_t(d + off - s_);
      st_ = St::Data;
      return true;
    }
  }
};

// ---- the blacklists ----

bool black_tag(const char* s, size_t n) {
  if (n < 3) return false;
  for (std::string_view t : kTags)
    if (same(t, s, n)) return true;
  return starts("SVG", s) || starts("XSL", s);  // anything SVG or XSL(T)
}

Attr black_attr(const char* s, size_t n) {
  if (n < 2) return Attr::None;
  if (n >= 5) {
    if (starts("ON", s)) return Attr::Black;                         // JavaScript event handlers
    if (starts("XMLNS", s) || starts("XLINK", s)) return Attr::Black;  // arbitrary tags, links
  }
  for (const AttrName& a : kAttrs)
    if (same(a.name, s, n)) return a.type;
  return Attr::None;
}

// One character of HTML text, "&#65;" and "&#x41;" decoded (named
// entities are not: '&'); consumed: how many bytes it took.
int html_char(const char* s, size_t n, size_t& consumed) {
  consumed = 1;
  if (s[0] != '&' || n < 2) return uint8_t(s[0]);
  if (s[1] != '#') return '&';
  if (n < 4) return uint8_t(s[1]);
  auto hexval = [](uint8_t c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  const bool hex = s[2] == 'x' || s[2] == 'X';
  size_t i = hex ? 3 : 2;
  int d = hex ? hexval(uint8_t(s[i])) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
  if (d < 0) return '&';
  int val = d;
  for (i++; i < n; i++) {
    const uint8_t c = uint8_t(s[i]);
    if (c == ';') {
      consumed = i + 1;
      return val;
    }
    d = hex ? hexval(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
    if (d < 0) {
      consumed = i;
      return val;
    }
    val = val * (hex ? 16 : 10) + d;
    if (val > 0x1000FF) return '&';
  }
  consumed = i;
  return val;
}

// Does HTML text b (n bytes) start with upper, case-insensitively, entities
// decoded, leading white space and control characters, NULs and '\n'
// ignored?
bool html_starts(std::string_view upper, const char* b, size_t n) {
  size_t k = 0;
  bool first = true;
  while (n > 0) {
    if (k == upper.size()) return true;
    size_t used;
    int c = html_char(b, n, used);
    b += used;
    n -= used;
    if (first && c <= 32) continue;
    first = false;
    if (c == 0 || c == 10) continue;
    if (c >= 'a' && c <= 'z') c -= 0x20;
    if (upper[k] != char(c)) return false;
    k++;
  }
  return k == upper.size();
}

bool black_url(const char* s, size_t n) {
  // leading control, space and non-ASCII bytes (UTF-8 white space) skipped
  while (n > 0 && (uint8_t(*s) <= 32 || uint8_t(*s) >= 127)) s++, n--;
  for (std::string_view u : kUrls)
    if (html_starts(u, s, n)) return true;
  return false;
}

bool xss_from(const char* s, size_t n, St start) {
  Html5 h(s, n, start);
  Attr attr = Attr::None;
  while (h.next()) {
    const char* t = h.tok;
    const size_t len = h.tok_len;
    if (h.type != Tok::AttrValue) attr = Attr::None;
    switch (h.type) {
      case Tok::Doctype: return true;
      case Tok::TagNameOpen:
        if (black_tag(t, len)) return true;
        break;
      case Tok::AttrName: attr = black_attr(t, len); break;
      case Tok::AttrValue:
        switch (attr) {
          case Attr::None: break;
          case Attr::Black:
          case Attr::Style: return true;
          case Attr::Url:
            if (black_url(t, len)) return true;
            break;
          case Attr::Indirect:  // SVG: the value names an attribute
            if (black_attr(t, len) != Attr::None) return true;
            break;
        }
        attr = Attr::None;
        break;
      case Tok::TagComment:
        if (std::memchr(t, '`', len)) return true;  // IE ends tags with '`'
        if (len > 3) {
          if (t[0] == '[' && up(t[1]) == 'I' && up(t[2]) == 'F') return true;  // IE conditional comment
          if (starts("XML", t)) return true;
        }
        if (len > 5 && (starts("IMPORT", t) || starts("ENTITY", t))) return true;  // IE <?import, XML entities
        break;
      default: break;
    }
  }
  return false;
}

}  // namespace

bool xss(const char* s, size_t n) {
  // as page text, then as an attribute value: unquoted, in ', " and `
  for (St start : {St::Data, St::BeforeAttrName, St::AttrValueSingle, St::AttrValueDouble, St::AttrValueBack})
    if (xss_from(s, n, start)) return true;
  return false;
}

}  // namespace fg
