function s = m2cu_num2str_rows(x, fmt)
%M2CU_NUM2STR_ROWS  num2str(x, fmt) of a real matrix as Octave 7.3 writes it: the format
% repeated for each column of a row (unless it has several conversions or is %s or %c), each
% row of text padded with blanks to the longest, and the blank columns common to every row
% trimmed at both ends (strtrim of a char matrix).
if sum(strrep(fmt, '%%', '') == '%') > 1 || strcmp(fmt, '%s') || strcmp(fmt, '%c')
  rowfmt = fmt;
else
  rowfmt = [deblank(repmat(fmt, 1, size(x, 2))), '\n'];
end
text = sprintf(rowfmt, x.');
% The lines of the text, empty ones dropped.
starts = zeros(1, 0);
ends = zeros(1, 0);
from = 1;
for k = 1:numel(text) + 1
  if k > numel(text) || text(k) == char(10)
    if k > from
      starts(end + 1) = from;
      ends(end + 1) = k - 1;
    end
    from = k + 1;
  end
end
r = numel(starts);
w = 0;
if r > 0
  w = max(ends - starts + 1);
end
s = repmat(' ', r, w);
for i = 1:r
  s(i, 1:ends(i) - starts(i) + 1) = text(starts(i):ends(i));
end
filled = find(any(s ~= ' ' & s ~= char(0) & s ~= char(9) & s ~= char(10), 1));
if isempty(filled)
  s = s(:, 1:0);
else
  s = s(:, filled(1):filled(end));
end
end
