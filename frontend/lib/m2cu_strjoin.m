function s = m2cu_strjoin(text, start, len, d, raw)
%M2CU_STRJOIN  strjoin(c, d) of an m2cu cell of texts (text, and each piece's offset and
% length), as Octave 7.3 joins: one piece is itself; else the pieces with d between them, a
% 0-by-0 text when all of them and d are empty.
if ~ischar(d)
  error('Invalid call to strjoin');
end
if raw && any(d(:) == '\')
  error('m2cu:strjoin', 'm2cu: a delimiter made when the program runs holds a backslash, whose escape sequence MATLAB translates; write the delimiter as a literal');
end
n = numel(len);
if n == 1 && len(1) == 0
  s = text;
elseif n * numel(d) + sum(len) == 0 && size(d, 1) == 0
  s = '';
else
  s = blanks(0);
  for k = 1:n
    s = [s, text(start(k)+1 : start(k)+len(k))];
    if k < n
      s = [s, d];
    end
  end
end
end
