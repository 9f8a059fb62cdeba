function [s, start, len] = m2cu_strsplit(s, dtext, dlens, collapse, raw)
%M2CU_STRSPLIT  strsplit(s, delimiters) for m2cu's cells of texts: the text itself, and the
% offset in it and the length of each piece (a row), as Octave 7.3 splits. The delimiters are
% one after another in dtext, their lengths in dlens; at each place the first that matches wins
% (an empty one never matches), and with collapse a run of delimiters is one. raw: the
% delimiter came when the program ran, and MATLAB would translate its escape sequences.
if ~ischar(s) || ~ischar(dtext)
  error('strsplit: S and DEL must be string values');
end
if ~isempty(s) && size(s, 1) ~= 1
  error('strsplit: S must be a char row vector');
end
if raw && any(dtext(:) == '\')
  error('m2cu:strsplit', 'm2cu: a delimiter made when the program runs holds a backslash, whose escape sequence MATLAB translates; write the delimiter as a literal');
end
n = numel(s);
start = zeros(1, 0);
len = zeros(1, 0);
piece = 0;
k = 1;
while k <= n
  m = delimiter_at(s, k, dtext, dlens);
  if m > 0
    start(end+1) = piece;
    len(end+1) = k - 1 - piece;
    k = k + m;
    if collapse
      m = delimiter_at(s, k, dtext, dlens);
      while m > 0
        k = k + m;
        m = delimiter_at(s, k, dtext, dlens);
      end
    end
    piece = k - 1;
  else
    k = k + 1;
  end
end
start(end+1) = piece;
len(end+1) = n - piece;
end

function m = delimiter_at(s, k, dtext, dlens)
% The length of the first delimiter that matches s at k, or 0.
m = 0;
at = 0;
for d = 1:numel(dlens)
  L = dlens(d);
  if m == 0 && L > 0 && k + L - 1 <= numel(s)
    same = true;
    for j = 1:L
      if s(k + j - 1) ~= dtext(at + j)
        same = false;
      end
    end
    if same
      m = L;
    end
  end
  at = at + L;
end
end
